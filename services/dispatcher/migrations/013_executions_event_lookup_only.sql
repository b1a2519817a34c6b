-- waybill:no-transaction
-- "Was this event delivered to this hook?" (recover, and every attempt of an event's delivery)
-- is answered by executions_event (tenant, event): an event has a few executions per hook, so the
-- lookup reads a handful of rows. The partial index it used before cost about 7 µs of PostgreSQL
-- CPU per recorded attempt (bench:record-cost), on the path every delivery takes.
DROP INDEX CONCURRENTLY IF EXISTS executions_hook_event_succeeded;
