-- Parked deliveries: those of a hook whose receiver stays down, kept here instead of JetStream
-- until it answers again (parked-deliveries.ts). Each waiting message in a JetStream consumer
-- costs nats-server a redelivery timer that it reviews with every other one each time one expires;
-- a receiver down for hours would keep a growing number of them cycling.
CREATE TABLE parked_deliveries (
  delivery_id     text PRIMARY KEY,
  tenant_id       text NOT NULL,
  hook_id         text NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  -- The DELIVERIES message as it was (delivery-message.ts), and the headers it carried.
  message         jsonb NOT NULL,
  transaction_id  text,
  traceparent     text,
  parked_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX parked_deliveries_hook ON parked_deliveries (hook_id, parked_at, delivery_id);
