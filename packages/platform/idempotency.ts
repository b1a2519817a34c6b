// Idempotency-Key for creating requests: the key and the first answer are stored in the same
// transaction as the creation, so a retry after a crash or a lost answer replays that answer.
// The same key with another request is a 422; a key whose first request is still running, a 409.
import { platformError } from "./errors.js";
import type { PoolClient } from "./db.js";

export const IDEMPOTENCY_WINDOW_HOURS = 24;

export interface IdempotencyRequest {
  key: string;
  requestHash: string;
}

export interface IdempotentResult<T> {
  value: T;
  replayed: boolean;
}

/**
 * Runs `create` once per (tenant, scope, key) inside the caller's transaction (`client` must be
 * in a transaction). Without a key it just runs `create`.
 */
export async function idempotent<T>(
  client: PoolClient,
  tenantId: string,
  scope: string,
  request: IdempotencyRequest | undefined,
  create: () => Promise<T>,
): Promise<IdempotentResult<T>> {
  if (!request?.key) return { value: await create(), replayed: false };
  const lock = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked", [
    `${tenantId}:${scope}`,
    request.key,
  ]);
  if (!lock.rows[0].locked) {
    throw platformError("idempotency_key_in_flight", "A request with this Idempotency-Key is still being processed; retry shortly.");
  }
  const { rows } = await client.query<{ request_hash: string; response: T }>(
    `SELECT request_hash, response FROM idempotency_keys
      WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND created_at > now() - make_interval(hours => $4)`,
    [tenantId, scope, request.key, IDEMPOTENCY_WINDOW_HOURS],
  );
  if (rows[0]) {
    if (rows[0].request_hash !== request.requestHash) {
      throw platformError("idempotency_key_reused", "This Idempotency-Key was used with a different request.", {
        errors: [{ path: "Idempotency-Key", message: "reused with another body" }],
      });
    }
    return { value: rows[0].response, replayed: true };
  }
  const value = await create();
  await client.query(
    `INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, response) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = now()`,
    [tenantId, scope, request.key, request.requestHash, JSON.stringify(value)],
  );
  return { value, replayed: false };
}
