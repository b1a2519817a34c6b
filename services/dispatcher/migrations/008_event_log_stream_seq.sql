-- Each logged event's position in EVENTS, so that a recovery or a manual retry on a per-entity
-- hook can put an event back into its entity's queue at the place it occurred (ordered_deliveries
-- orders by event_time, then stream_seq). Null for events logged before this column existed.
ALTER TABLE event_log ADD COLUMN stream_seq bigint;
