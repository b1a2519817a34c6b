-- Auto-disable: since when every delivery attempt to a hook has failed (NULL after a success),
-- and why the system paused a hook that stayed so for WEBHOOK_DISABLE_AFTER.
ALTER TABLE hooks ADD COLUMN failing_since timestamptz;
ALTER TABLE hooks ADD COLUMN disabled_reason text;
CREATE INDEX hooks_failing ON hooks (failing_since) WHERE status = 'active' AND failing_since IS NOT NULL;
