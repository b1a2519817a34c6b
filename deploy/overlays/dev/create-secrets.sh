#!/usr/bin/env bash
# Creates every Secret the dev overlay needs, with random passwords and a throwaway CA for the
# NATS, MQTT and API certificates. For trying Waybill out only; production secrets: README.
# Usage: deploy/overlays/dev/create-secrets.sh [namespace]   (needs kubectl and openssl)
set -euo pipefail
ns=${1:-waybill}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
random() { openssl rand -hex 24; }
apply() { kubectl -n "$ns" create secret "$@" --dry-run=client -o yaml | kubectl apply -f -; }

kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"

apply generic waybill-nats-auth --from-literal=NATS_WAYBILL_PASSWORD="$(random)" --from-literal=NATS_SYSTEM_PASSWORD="$(random)"
apply generic waybill-dispatcher --from-literal=WEBHOOK_SECRET_KEY="$(openssl rand -base64 32)"
apply generic waybill-identity --from-literal=IDENTITY_SECRET_KEY="$(openssl rand -base64 32)"
apply generic waybill-db-superuser --type=kubernetes.io/basic-auth --from-literal=username=postgres --from-literal=password="$(random)"
for role in identity orders inventory dispatcher devices; do
  apply generic "waybill-db-$role" --type=kubernetes.io/basic-auth --from-literal=username="$role" --from-literal=password="$(random)"
done

# A private CA and one certificate per TLS endpoint.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 -subj /CN=waybill-dev-ca \
  -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
issue() { # name, subjectAltName
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" -keyout "$work/$1.key" -out "$work/$1.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$2" >"$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 365 \
    -extfile "$work/$1.ext" -out "$work/$1.crt" 2>/dev/null
  apply generic "waybill-$1-tls" --from-file=tls.crt="$work/$1.crt" --from-file=tls.key="$work/$1.key" --from-file=ca.crt="$work/ca.crt"
}
issue nats "DNS:nats,DNS:nats.$ns,DNS:nats.$ns.svc,DNS:nats.$ns.svc.cluster.local,DNS:*.nats,DNS:*.nats.$ns.svc.cluster.local"
issue mqtt "DNS:localhost,DNS:mqtt.waybill.example.com"
issue edge "DNS:localhost,DNS:api.waybill.example.com"
echo "secrets created in namespace $ns; clients trust the ca.crt of the waybill-*-tls secrets"
