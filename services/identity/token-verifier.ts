// Verifying an API token against the store: the answer behind every edge's and gateway's token
// cache. lastUsedAt is written behind: uses are collected in memory and flushed periodically,
// never one UPDATE per request.
import type { Pool } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { hashToken, tokenTypeOf, type TokenType } from "@waybill/contracts/identity/tokens.js";

export interface VerifiedToken {
  tenantId: string;
  tokenId: string;
  tokenType: TokenType;
  expiresAt: Date | null;
}

export const LAST_USED_FLUSH_INTERVAL_MS = 15_000;

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
  flushLastUsed(): Promise<void>;
}

export function createTokenVerifier(pool: Pool, now: () => Date = () => new Date()): TokenVerifier {
  const lastUsed = new Map<string, Date>();
  return {
    async verify(token) {
      const type = tokenTypeOf(token);
      if (!type) throw appError("invalid_token", "The bearer token is not a Waybill token.");
      const { rows } = await pool.query<{ id: string; tenant_id: string; type: TokenType; expires_at: Date | null; revoked_at: Date | null }>(
        "SELECT id, tenant_id, type, expires_at, revoked_at FROM api_tokens WHERE token_hash = $1",
        [hashToken(token)],
      );
      const row = rows[0];
      if (!row) throw appError("invalid_token", "The bearer token is unknown.");
      if (row.revoked_at) throw appError("token_revoked", "The bearer token has been revoked.");
      if (row.expires_at && row.expires_at.getTime() <= now().getTime()) {
        throw appError("token_expired", "The bearer token has expired.");
      }
      lastUsed.set(row.id, now());
      return { tenantId: row.tenant_id, tokenId: row.id, tokenType: row.type, expiresAt: row.expires_at };
    },
    async flushLastUsed() {
      if (lastUsed.size === 0) return;
      const batch = [...lastUsed.entries()];
      lastUsed.clear();
      await pool.query(
        `UPDATE api_tokens t SET last_used_at = GREATEST(t.last_used_at, u.at)
           FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id`,
        [batch.map(([id]) => id), batch.map(([, at]) => at)],
      );
    },
  };
}
