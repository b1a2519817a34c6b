CREATE TABLE customers (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL,
  name        text NOT NULL,
  email       text,
  phone       text,
  -- { line1, line2, city, region, postalCode, country } or null
  address     jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  -- Target of the tenant-scoped foreign key below; also serves the list (tenant, newest first).
  CONSTRAINT customers_tenant_id UNIQUE (tenant_id, id)
);

-- An order's customer is in the order's tenant. NOT VALID: orders written before customers
-- existed keep their free-form ids; every new or changed row is checked.
ALTER TABLE orders
  ADD CONSTRAINT orders_customer_fk FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id) NOT VALID;
