-- Which key sealed the hook secrets: a SHA-256 fingerprint of WEBHOOK_SECRET_KEY (never the key).
-- A dispatcher started with another key while hooks exist refuses to start instead of failing
-- every delivery with "secret unavailable".
CREATE TABLE secret_key_check (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  fingerprint text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
