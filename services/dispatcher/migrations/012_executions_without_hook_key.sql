-- Executions keep no foreign key to hooks: the statement that records attempts locks each hook's
-- row and inserts only for hooks it found (executions.ts), and deleting a hook deletes its
-- executions in the same transaction (hooks.ts). The key's check cost about a fifth of recording
-- an attempt (bench:record-cost).
ALTER TABLE executions DROP CONSTRAINT IF EXISTS executions_hook_id_fkey;
