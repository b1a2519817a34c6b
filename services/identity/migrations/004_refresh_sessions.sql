-- Console sessions behind the refresh cookie (docs/authentication.md, "Staying signed in").
-- Every login is a session; its access JWTs carry the session id as `sid`. A remembered session
-- also has a refresh value, stored only as its SHA-256 and replaced on every use.
CREATE TABLE sessions (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants(id),
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- SHA-256 of the current refresh value; NULL for a session without "remember".
  refresh_hash  bytea UNIQUE,
  user_agent    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  -- logout | revoked | reuse (a rotated-away value came back after the grace period)
  revoked_reason text
);
CREATE INDEX sessions_user ON sessions (tenant_id, user_id, created_at DESC);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Refresh values a session rotated away: one presented again within the grace period (two tabs
-- refreshing at once) still refreshes; after it, it is taken for a stolen copy.
CREATE TABLE session_retired_values (
  refresh_hash  bytea PRIMARY KEY,
  session_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  retired_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_retired_values_session ON session_retired_values (session_id);
