-- An order whose stock effect in inventory (reserve, release, consume) is under way: written and
-- committed on its own connection once the status change holds the order's row lock, before
-- inventory is called, and deleted by the status change's transaction. A row whose order is not
-- locked any more names a status change that died between inventory and its commit (a crash, a
-- lost database connection): the stock reconciler (stock-intents.ts) then makes inventory match
-- the order's committed status.
CREATE TABLE stock_intents (
  tenant_id   text NOT NULL,
  order_id    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, order_id)
);
CREATE INDEX stock_intents_age ON stock_intents (created_at);
