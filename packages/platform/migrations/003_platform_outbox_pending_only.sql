-- The outbox holds only rows still to be published (the relay deletes what it published), so
-- published_at is always null and its partial index only repeated the primary key at the cost of
-- a second index write per event.
DROP INDEX IF EXISTS outbox_unpublished;
ALTER TABLE outbox DROP COLUMN IF EXISTS published_at;
