-- orders_tenant_id UNIQUE (tenant_id, id) already serves "a tenant's orders, newest first"
-- (a B-tree reads backwards as well); the second index only cost a write per order.
DROP INDEX IF EXISTS orders_tenant_list;
