CREATE TABLE orders (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL,
  short_id     text NOT NULL,
  customer_id  text NOT NULL,
  due_date     timestamptz,
  currency     char(3) NOT NULL,
  status       text NOT NULL CHECK (status IN ('pending', 'ready', 'inProgress', 'completed', 'cancelled')),
  total        numeric(19, 4) NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, short_id)
);
CREATE INDEX orders_tenant_list ON orders (tenant_id, id DESC);
CREATE INDEX orders_tenant_status ON orders (tenant_id, status, id DESC);
CREATE INDEX orders_tenant_customer ON orders (tenant_id, customer_id, id DESC);

CREATE TABLE order_items (
  order_id    text NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  line_no     integer NOT NULL,
  tenant_id   text NOT NULL,
  product_id  text NOT NULL,
  quantity    integer NOT NULL CHECK (quantity > 0),
  price       numeric(19, 4) NOT NULL,
  PRIMARY KEY (order_id, line_no)
);
