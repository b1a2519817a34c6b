-- Session JWTs are signed with Ed25519 keys that identity generates; the edge fetches the public
-- halves. Only the newest key signs; older ones still verify until they are removed.
CREATE TABLE signing_keys (
  kid          text PRIMARY KEY,
  private_pem  text NOT NULL,
  public_jwk   jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- Login is by email alone, so an email names one user across all tenants.
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email_unique ON users (lower(email));
