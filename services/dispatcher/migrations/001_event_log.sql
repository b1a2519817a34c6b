-- Every event seen on EVENTS, per tenant: the tenant's event log and the dispatcher's record of
-- what it has fanned out. Inserting by event id makes consumption naturally idempotent.
CREATE TABLE event_log (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL,
  kind            text NOT NULL,
  time            timestamptz NOT NULL,
  transaction_id  text NOT NULL,
  event           jsonb NOT NULL,
  received_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_log_tenant ON event_log (tenant_id, id DESC);
CREATE INDEX event_log_tenant_kind ON event_log (tenant_id, kind, id DESC);
