-- Recover: executions of redeliveries asked for with POST /hooks/{id}/recover, and the lookup
-- "has this event ever been delivered to this hook" that a recovery makes per event.
ALTER TABLE executions DROP CONSTRAINT executions_trigger_check;
ALTER TABLE executions ADD CONSTRAINT executions_trigger_check CHECK (trigger IN ('event', 'retry', 'test', 'manual', 'recover'));
CREATE INDEX executions_hook_event_succeeded ON executions (hook_id, event_id) WHERE outcome = 'succeeded';
