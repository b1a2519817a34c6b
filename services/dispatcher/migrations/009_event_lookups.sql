-- waybill:no-transaction
-- Lookups of the tenant's event log (GET /v1/events?transactionId=…&entityId=…&deviceId=…) and of
-- one event's deliveries (GET /v1/events/{id}/deliveries). Both tables hold data: the indexes are
-- built CONCURRENTLY, each dropped first in case an earlier run left it invalid.
--
-- An event's entities are the catalog's flat id fields of its payload (orderId, shipmentId,
-- productId, customerId, deviceId, hookId). They are indexed as expressions of the stored event,
-- one partial index per field (only the events that carry it), so events recorded before this
-- migration are found too and the write path stores nothing more. Each index is ordered by id, so
-- a page newest first reads only its rows.
DROP INDEX CONCURRENTLY IF EXISTS event_log_transaction;
CREATE INDEX CONCURRENTLY event_log_transaction ON event_log (tenant_id, transaction_id, id DESC);

DROP INDEX CONCURRENTLY IF EXISTS event_log_order;
CREATE INDEX CONCURRENTLY event_log_order ON event_log (tenant_id, (event ->> 'orderId'), id DESC) WHERE (event ->> 'orderId') IS NOT NULL;

DROP INDEX CONCURRENTLY IF EXISTS event_log_shipment;
CREATE INDEX CONCURRENTLY event_log_shipment ON event_log (tenant_id, (event ->> 'shipmentId'), id DESC) WHERE (event ->> 'shipmentId') IS NOT NULL;

DROP INDEX CONCURRENTLY IF EXISTS event_log_product;
CREATE INDEX CONCURRENTLY event_log_product ON event_log (tenant_id, (event ->> 'productId'), id DESC) WHERE (event ->> 'productId') IS NOT NULL;

DROP INDEX CONCURRENTLY IF EXISTS event_log_customer;
CREATE INDEX CONCURRENTLY event_log_customer ON event_log (tenant_id, (event ->> 'customerId'), id DESC) WHERE (event ->> 'customerId') IS NOT NULL;

DROP INDEX CONCURRENTLY IF EXISTS event_log_device;
CREATE INDEX CONCURRENTLY event_log_device ON event_log (tenant_id, (event ->> 'deviceId'), id DESC) WHERE (event ->> 'deviceId') IS NOT NULL;

DROP INDEX CONCURRENTLY IF EXISTS event_log_hook;
CREATE INDEX CONCURRENTLY event_log_hook ON event_log (tenant_id, (event ->> 'hookId'), id DESC) WHERE (event ->> 'hookId') IS NOT NULL;

-- Every delivery attempt of one event, to any hook of the tenant, newest first.
DROP INDEX CONCURRENTLY IF EXISTS executions_event;
CREATE INDEX CONCURRENTLY executions_event ON executions (tenant_id, event_id, id DESC);
