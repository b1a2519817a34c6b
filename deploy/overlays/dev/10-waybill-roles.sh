#!/bin/sh
# First start of the dev PostgreSQL only (docker-entrypoint-initdb.d): one login role per
# service, from its waybill-db-<service> Secret. A role may connect to `waybill` and create its
# own schema there (the service migrates it); it has no rights on the other services' schemas.
set -eu
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c 'REVOKE ALL ON DATABASE waybill FROM PUBLIC'
for service in identity orders inventory dispatcher devices; do
  user=$(cat "/etc/waybill-db/$service/username")
  password=$(cat "/etc/waybill-db/$service/password")
  psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v user="$user" -v password="$password" <<'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'password';
GRANT CONNECT, CREATE ON DATABASE waybill TO :"user";
SQL
done
