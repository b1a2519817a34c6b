-- Transactional outbox: events written in the same transaction as the state change; the relay
-- publishes them to JetStream (Nats-Msg-Id = id) and marks them published.
CREATE TABLE outbox (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL,
  kind          text NOT NULL,
  subject       text NOT NULL,
  event         jsonb NOT NULL,
  headers       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;

-- Idempotent consumers: ids of messages already processed, per consumer.
CREATE TABLE inbox (
  consumer      text NOT NULL,
  message_id    text NOT NULL,
  processed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, message_id)
);
