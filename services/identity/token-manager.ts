// The API token manager: create (value shown once), list (never the value), revoke.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool, Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { idempotent, type IdempotencyRequest } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import { generateToken, hashToken, type TokenType } from "@waybill/contracts/identity/tokens.js";

export interface TokenRecord {
  id: string;
  name: string;
  type: TokenType;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface TokenRow {
  id: string;
  name: string;
  type: TokenType;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function fromRow(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

/**
 * The instant of a client's date-time, in UTC: PostgreSQL refuses offsets beyond ±15:59 (22009),
 * which ISO 8601 and the API allow up to ±23:59, so the offset never reaches it.
 */
function expiryInstant(value: string): Date {
  const instant = new Date(value);
  const year = instant.getUTCFullYear();
  if (Number.isNaN(instant.getTime()) || year < 1 || year > 9999) {
    throw appError("validation_failed", "expiresAt is not a date-time between the years 0001 and 9999", {
      errors: [{ path: "expiresAt", message: "an ISO 8601 date-time with offset, such as 2027-01-01T00:00:00Z" }],
    });
  }
  return instant;
}

export async function createToken(
  db: Queryable,
  tenantId: string,
  input: { name: string; type: TokenType; expiresAt: string | null },
): Promise<{ token: TokenRecord; value: string }> {
  const expiresAt = input.expiresAt === null ? null : expiryInstant(input.expiresAt);
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw appError("validation_failed", "expiresAt must be in the future", { errors: [{ path: "expiresAt", message: "must be in the future" }] });
  }
  const value = generateToken(input.type);
  const { rows } = await db.query<TokenRow>(
    `INSERT INTO api_tokens (id, tenant_id, name, type, token_hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, name, type, created_at, expires_at, last_used_at, revoked_at`,
    [newId("tok"), tenantId, input.name, input.type, hashToken(value), expiresAt?.toISOString() ?? null],
  );
  return { token: fromRow(rows[0]), value };
}

export interface CreatedToken {
  token: TokenRecord;
  /** The token value; undefined in a replay (it exists only as a hash, so it cannot be answered twice). */
  value?: string;
  replayed: boolean;
}

/**
 * createToken behind an Idempotency-Key: the key is stored with the token's metadata in the same
 * transaction as the token. The value itself is never stored, so a replay answers the metadata only.
 */
export async function createTokenIdempotently(
  pool: Pool,
  tenantId: string,
  input: { name: string; type: TokenType; expiresAt: string | null },
  idempotency?: IdempotencyRequest,
): Promise<CreatedToken> {
  let value: string | undefined;
  const stored = await withTransaction(pool, (client) =>
    idempotent<TokenRecord>(client, tenantId, "tokens.create", idempotency, async () => {
      const created = await createToken(client, tenantId, input);
      value = created.value;
      return created.token;
    }),
  );
  return { token: stored.value, value: stored.replayed ? undefined : value, replayed: stored.replayed };
}

export async function listTokens(db: Queryable, tenantId: string, limit: number, cursor?: string): Promise<Page<TokenRecord>> {
  const { rows } = await db.query<TokenRow>(
    `SELECT id, name, type, created_at, expires_at, last_used_at, revoked_at FROM api_tokens
      WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [tenantId, decodeCursor(cursor), limit + 1],
  );
  const page = toPage(rows, limit);
  return { data: page.data.map(fromRow), nextCursor: page.nextCursor };
}

/** Marks the token revoked; revoking twice is harmless. */
export async function revokeToken(db: Queryable, tenantId: string, id: string): Promise<void> {
  const { rowCount } = await db.query("UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
  if (rowCount === 0) throw appError("token_not_found", `No token ${id}.`);
}
