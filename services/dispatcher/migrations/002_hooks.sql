-- Hooks: a tenant's subscriptions of one event kind each. The signing secret is stored sealed
-- (AES-256-GCM, key from WEBHOOK_SECRET_KEY), never in the clear.
CREATE TABLE hooks (
  id                      text PRIMARY KEY,
  tenant_id               text NOT NULL,
  name                    text NOT NULL,
  url                     text NOT NULL,
  on_kind                 text NOT NULL,
  status                  text NOT NULL CHECK (status IN ('active', 'paused')),
  secret_sealed           text NOT NULL,
  secret_last_rotated_at  timestamptz NOT NULL,
  success_count           bigint NOT NULL DEFAULT 0,
  error_count             bigint NOT NULL DEFAULT 0,
  last_run_at             timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX hooks_tenant ON hooks (tenant_id, id DESC);
-- The fan-out lookup: a tenant's active hooks of one kind.
CREATE INDEX hooks_fan_out ON hooks (tenant_id, on_kind) WHERE status = 'active';

-- Every delivery attempt. delivery_id names one hook × event delivery (or one manual re-delivery);
-- its attempts share it, so the next attempt's number and due time are read from here.
CREATE TABLE executions (
  id                text PRIMARY KEY,
  tenant_id         text NOT NULL,
  hook_id           text NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  delivery_id       text NOT NULL,
  event_id          text NOT NULL,
  event_kind        text NOT NULL,
  trigger           text NOT NULL CHECK (trigger IN ('event', 'retry', 'test', 'manual')),
  attempt           integer NOT NULL,
  url               text NOT NULL,
  requested_at      timestamptz NOT NULL,
  duration_ms       integer NOT NULL,
  outcome           text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  status_code       integer,
  response_body     text,
  response_headers  jsonb NOT NULL DEFAULT '{}'::jsonb,
  error             text,
  next_attempt_at   timestamptz
);
CREATE INDEX executions_hook ON executions (hook_id, id DESC);
CREATE INDEX executions_delivery ON executions (delivery_id, attempt DESC);

-- webhook.test events never pass through EVENTS; they are kept here so that their executions
-- can be retried like any other.
CREATE TABLE test_events (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL,
  hook_id     text NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  event       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
