-- The relay now deletes what it has published; rows marked published by earlier versions go too.
DELETE FROM outbox WHERE published_at IS NOT NULL;
