-- When a hook last became active: its creation, or its last resume from paused. Deliveries of
-- events that occurred before it are dropped, so a resumed hook receives only events from then on
-- (not what was queued before it was paused). Existing hooks count from their creation.
ALTER TABLE hooks ADD COLUMN active_since timestamptz;
UPDATE hooks SET active_since = created_at;
ALTER TABLE hooks ALTER COLUMN active_since SET NOT NULL, ALTER COLUMN active_since SET DEFAULT now();
