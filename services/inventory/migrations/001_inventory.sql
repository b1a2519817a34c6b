CREATE TABLE products (
  id                   text PRIMARY KEY,
  tenant_id            text NOT NULL,
  sku                  text NOT NULL,
  name                 text NOT NULL,
  price                numeric(19, 4),
  currency             char(3),
  low_stock_threshold  integer,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at           timestamptz
);
CREATE UNIQUE INDEX products_tenant_sku ON products (tenant_id, sku) WHERE deleted_at IS NULL;
CREATE INDEX products_tenant_list ON products (tenant_id, id DESC) WHERE deleted_at IS NULL;
