// Console sessions: created at login, refreshed with a value that is replaced on every use,
// listed and ended by their user. Refresh values are 256 random bits stored only as SHA-256.
// A value rotated away still refreshes within a short grace (two tabs refreshing at once);
// presented after it, it is taken for a stolen copy and the whole session ends.
import { randomBytes } from "node:crypto";
import type { Pool, PoolClient, Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { newId } from "@waybill/platform/ids.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { hashToken } from "@waybill/contracts/identity/tokens.js";

export interface SessionPolicy {
  /** Lifetime of an access JWT. */
  accessTtlSeconds: number;
  /** How long a remembered session lives after its last refresh. */
  refreshTtlSeconds: number;
  /** How long a rotated-away refresh value still refreshes. */
  graceSeconds: number;
}

export interface SessionRecord {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  userAgent: string | null;
}

export interface CreatedSession {
  id: string;
  refreshValue?: string;
  refreshExpiresAt?: string;
}

/** The user a refreshed session signs for. */
export interface RefreshedSession {
  id: string;
  user: { id: string; tenantId: string; role: string };
  /** Absent when the value presented was rotated away within the grace period. */
  refreshValue?: string;
  refreshExpiresAt: string;
}

/** Why a session ended: told to the caller so it can broadcast the revocation after commit. */
export interface EndedSession {
  id: string;
  tenantId: string;
}

export const MAX_USER_AGENT_LENGTH = 256;
const REFRESH_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const sessionExpired = () => appError("session_expired", "The session has ended; log in again.");

const newRefreshValue = () => randomBytes(32).toString("base64url");
const userAgentOf = (value?: string) => (value ? value.slice(0, MAX_USER_AGENT_LENGTH) : null);

export async function createSession(
  db: Queryable,
  user: { id: string; tenantId: string },
  policy: SessionPolicy,
  remember: boolean,
  userAgent?: string,
): Promise<CreatedSession> {
  const id = newId("ses");
  // A session without "remember" lives as long as its one access token.
  const ttl = remember ? policy.refreshTtlSeconds : policy.accessTtlSeconds;
  const refreshValue = remember ? newRefreshValue() : undefined;
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO sessions (id, tenant_id, user_id, refresh_hash, user_agent, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) RETURNING expires_at`,
    [id, user.tenantId, user.id, refreshValue ? hashToken(refreshValue) : null, userAgentOf(userAgent), ttl],
  );
  return { id, refreshValue, refreshExpiresAt: refreshValue ? rows[0].expires_at.toISOString() : undefined };
}

interface LiveRow {
  id: string;
  tenant_id: string;
  user_id: string;
  role: string;
  live: boolean;
}

const SESSION_COLUMNS = "s.id, s.tenant_id, s.user_id, u.role, (s.revoked_at IS NULL AND s.expires_at > now()) AS live";

type RefreshOutcome = { kind: "refreshed"; session: RefreshedSession } | { kind: "expired" } | { kind: "reused"; ended: EndedSession };

/**
 * Exchanges a refresh value for a new one. Rejects with 401 session_expired when the value is
 * unknown or its session ended; a rotated-away value after the grace period ends the session
 * (`onEnded` hears of it, to broadcast the revocation) and is answered the same way.
 */
export async function refreshSession(
  pool: Pool,
  value: string,
  policy: SessionPolicy,
  userAgent: string | undefined,
  onEnded: (client: PoolClient, ended: EndedSession) => Promise<void>,
): Promise<RefreshedSession> {
  if (!REFRESH_VALUE.test(value)) throw sessionExpired();
  const hash = hashToken(value);
  const outcome = await withTransaction(pool, async (client): Promise<RefreshOutcome> => {
    const current = await client.query<LiveRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.refresh_hash = $1 FOR UPDATE OF s`,
      [hash],
    );
    const row = current.rows[0];
    if (row) {
      if (!row.live) return { kind: "expired" };
      const next = newRefreshValue();
      const { rows } = await client.query<{ expires_at: Date }>(
        `UPDATE sessions SET refresh_hash = $2, last_used_at = now(), expires_at = now() + make_interval(secs => $3),
                user_agent = COALESCE($4, user_agent)
          WHERE id = $1 RETURNING expires_at`,
        [row.id, hashToken(next), policy.refreshTtlSeconds, userAgentOf(userAgent)],
      );
      await client.query("INSERT INTO session_retired_values (refresh_hash, session_id) VALUES ($1, $2)", [hash, row.id]);
      return { kind: "refreshed", session: { ...sessionOf(row), refreshValue: next, refreshExpiresAt: rows[0].expires_at.toISOString() } };
    }
    const retired = await client.query<LiveRow & { in_grace: boolean; expires_at: Date }>(
      `SELECT ${SESSION_COLUMNS}, s.expires_at, r.retired_at > now() - make_interval(secs => $2) AS in_grace
         FROM session_retired_values r JOIN sessions s ON s.id = r.session_id JOIN users u ON u.id = s.user_id
        WHERE r.refresh_hash = $1 FOR UPDATE OF s`,
      [hash, policy.graceSeconds],
    );
    const old = retired.rows[0];
    if (!old?.live) return { kind: "expired" };
    if (old.in_grace) {
      // The other tab's answer carries the new value; this one gets an access token only.
      await client.query("UPDATE sessions SET last_used_at = now() WHERE id = $1", [old.id]);
      return { kind: "refreshed", session: { ...sessionOf(old), refreshExpiresAt: old.expires_at.toISOString() } };
    }
    await client.query("UPDATE sessions SET revoked_at = now(), revoked_reason = 'reuse' WHERE id = $1", [old.id]);
    const ended = { id: old.id, tenantId: old.tenant_id };
    await onEnded(client, ended);
    return { kind: "reused", ended };
  });
  if (outcome.kind !== "refreshed") throw sessionExpired();
  return outcome.session;
}

function sessionOf(row: LiveRow): Omit<RefreshedSession, "refreshExpiresAt"> {
  return { id: row.id, user: { id: row.user_id, tenantId: row.tenant_id, role: row.role } };
}

/** Ends the session a refresh value (current or retired) belongs to; unknown values are ignored. */
export async function logoutSession(pool: Pool, value: string, onEnded: (client: PoolClient, ended: EndedSession) => Promise<void>): Promise<void> {
  if (!REFRESH_VALUE.test(value)) return;
  const hash = hashToken(value);
  await withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; tenant_id: string }>(
      `UPDATE sessions SET revoked_at = now(), revoked_reason = 'logout'
        WHERE revoked_at IS NULL
          AND (refresh_hash = $1 OR id = (SELECT session_id FROM session_retired_values WHERE refresh_hash = $1))
        RETURNING id, tenant_id`,
      [hash],
    );
    for (const row of rows) await onEnded(client, { id: row.id, tenantId: row.tenant_id });
  });
}

/** Live sessions of one user, newest first. */
export async function listSessions(db: Queryable, tenantId: string, userId: string, limit = 100): Promise<SessionRecord[]> {
  const { rows } = await db.query<{ id: string; created_at: Date; last_used_at: Date; expires_at: Date; user_agent: string | null }>(
    `SELECT id, created_at, last_used_at, expires_at, user_agent FROM sessions
      WHERE tenant_id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [tenantId, userId, limit],
  );
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    userAgent: row.user_agent,
  }));
}

/** Ends one of the user's own sessions; ending it twice is harmless. Another user's id is 404. */
export async function revokeSession(client: PoolClient, tenantId: string, userId: string, id: string): Promise<EndedSession> {
  const { rows } = await client.query<{ revoked_at: Date }>(
    `UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason, 'revoked')
      WHERE tenant_id = $1 AND user_id = $2 AND id = $3 RETURNING revoked_at`,
    [tenantId, userId, id],
  );
  if (rows.length === 0) throw appError("session_not_found", `No session ${id}.`);
  return { id, tenantId };
}

/** Drops sessions that ended more than a day ago (with their retired values). */
export async function deleteEndedSessions(db: Queryable, limit = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM sessions WHERE id IN (
       SELECT id FROM sessions WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day' LIMIT $1)`,
    [limit],
  );
  return rowCount ?? 0;
}
