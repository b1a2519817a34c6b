-- Idempotency-Key records of creating requests (24 h window; older rows are replaced).
CREATE TABLE idempotency_keys (
  tenant_id     text NOT NULL,
  scope         text NOT NULL,
  key           text NOT NULL,
  request_hash  text NOT NULL,
  response      jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, scope, key)
);
