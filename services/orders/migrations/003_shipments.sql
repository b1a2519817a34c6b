-- Target of the tenant-scoped foreign key from shipments.
ALTER TABLE orders ADD CONSTRAINT orders_tenant_id UNIQUE (tenant_id, id);

CREATE TABLE shipments (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL,
  order_id         text NOT NULL,
  carrier          text NOT NULL,
  tracking_number  text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'inTransit', 'delivered', 'exception')),
  delivered_at     timestamptz,
  received_by      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, id),
  -- Devices report by tracking number, so it names one shipment per tenant.
  CONSTRAINT shipments_tenant_tracking_number UNIQUE (tenant_id, tracking_number)
);
CREATE INDEX shipments_tenant_list ON shipments (tenant_id, id DESC);
CREATE INDEX shipments_tenant_order ON shipments (tenant_id, order_id, id DESC);
CREATE INDEX shipments_tenant_status ON shipments (tenant_id, status, id DESC);

CREATE TABLE shipment_items (
  shipment_id  text NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  line_no      integer NOT NULL,
  tenant_id    text NOT NULL,
  order_id     text NOT NULL,
  product_id   text NOT NULL,
  quantity     integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (shipment_id, line_no)
);
CREATE INDEX shipment_items_order ON shipment_items (order_id);

-- Every status a shipment went through, oldest first.
CREATE TABLE shipment_timeline (
  shipment_id  text NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  seq          integer NOT NULL,
  tenant_id    text NOT NULL,
  status       text NOT NULL,
  at           timestamptz NOT NULL,
  location     text,
  note         text,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shipment_id, seq)
);
