-- Stock per (product, location). available = on_hand - reserved; the CHECKs are the last line
-- of defence against overselling, behind the row locks taken by the code.
CREATE TABLE stock_levels (
  tenant_id   text NOT NULL,
  product_id  text NOT NULL REFERENCES products(id),
  location    text NOT NULL,
  on_hand     integer NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
  reserved    integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (reserved <= on_hand),
  -- Also the lock order of every multi-row change: (product_id, location) within a tenant.
  PRIMARY KEY (tenant_id, product_id, location)
);
-- The list order of GET /v1/inventory (newest product first, then location), with and without ?location=.
CREATE INDEX stock_levels_tenant_list ON stock_levels (tenant_id, product_id DESC, location);
CREATE INDEX stock_levels_tenant_location ON stock_levels (tenant_id, location, product_id DESC);

-- Every manual or measured change of on_hand, for audit.
CREATE TABLE stock_adjustments (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL,
  product_id  text NOT NULL REFERENCES products(id),
  location    text NOT NULL,
  delta       integer NOT NULL,
  set_to      integer,
  reason      text NOT NULL,
  on_hand     integer NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stock_adjustments_tenant_product ON stock_adjustments (tenant_id, product_id, id DESC);

-- One reservation per order (its primary key serialises concurrent reservations of the same
-- order) and what it took from each location, so release and consume return exactly that.
CREATE TABLE reservations (
  tenant_id   text NOT NULL,
  order_id    text NOT NULL,
  status      text NOT NULL CHECK (status IN ('held', 'released', 'consumed')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, order_id)
);

CREATE TABLE reservation_lines (
  tenant_id   text NOT NULL,
  order_id    text NOT NULL,
  product_id  text NOT NULL,
  location    text NOT NULL,
  quantity    integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (tenant_id, order_id, product_id, location),
  FOREIGN KEY (tenant_id, order_id) REFERENCES reservations (tenant_id, order_id)
);
