-- Session signing keys rotate (session-keys.ts): one key signs; a replaced key is marked retired
-- and stays published until every access JWT it signed has expired, then its row is deleted.
ALTER TABLE signing_keys ADD COLUMN retired_at timestamptz;
