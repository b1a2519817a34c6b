// Hooks: a tenant's subscriptions. Plain functions over SQL; every query filters by tenant, so
// another tenant's hook is simply not found. Secrets are sealed before they reach the database
// and opened only for the create / rotate answers and the signer.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool, Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError } from "@waybill/platform/errors.js";
import { idempotent, type IdempotencyRequest } from "@waybill/platform/idempotency.js";
import { hasPrefix, newId } from "@waybill/platform/ids.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import type { HookUrlCheck } from "./hook-address.js";
import type { HookChangeSignal } from "./hook-changes.js";
import { checkHookFields, type HookOrdering, type HookStatus } from "@waybill/contracts/limits/hooks.js";
import { releaseOrderedDeliveries } from "./ordered-deliveries.js";
import { orderPendingRetries } from "./ordered-redelivery.js";
import { queueDeliveries } from "./fan-out.js";
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Topology } from "@waybill/platform/nats.js";
import { generateHookSecret, type SecretBox } from "./secrets.js";
import { lockForRotation } from "./signing-lock.js";

export interface HooksDeps {
  pool: Pool;
  secrets: SecretBox;
  /** Refuses URLs the delivery guard would block; none when absent. */
  checkUrl?: HookUrlCheck;
  /**
   * Told of each change of a hook once it has committed, before the caller answers: moves the mark
   * that deliveries signed at intake are checked against (hook-changes.ts).
   */
  hookChanges?: HookChangeSignal;
}

export interface Hook {
  id: string;
  name: string;
  url: string;
  on: string;
  status: HookStatus;
  ordering: HookOrdering;
  successCount: number;
  errorCount: number;
  lastRunAt: string | null;
  /** Set when the system paused the hook because every delivery failed for too long. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface HookSecret {
  secret: string;
  secretLastRotatedAt: string;
}

export interface HookRow {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  on_kind: string;
  status: HookStatus;
  ordering: HookOrdering;
  secret_sealed: string;
  secret_last_rotated_at: Date;
  active_since: Date;
  success_count: string;
  error_count: string;
  last_run_at: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export function hookFromRow(row: HookRow): Hook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    on: row.on_kind,
    status: row.status,
    ordering: row.ordering,
    successCount: Number(row.success_count),
    errorCount: Number(row.error_count),
    lastRunAt: row.last_run_at?.toISOString() ?? null,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function hookNotFound(id: string): AppError {
  return appError("hook_not_found", `No hook ${JSON.stringify(id)} in this tenant.`);
}

/** Test deliveries and manual retries of a paused hook: it receives nothing. */
export function hookPaused(id: string): AppError {
  return appError("hook_paused", `Hook ${id} is paused; a paused hook receives nothing. Set its status to active first.`);
}

/** An id that cannot be a hook's names nothing (and never reaches SQL). */
export function isHookId(id: string): boolean {
  return hasPrefix(id, "hook");
}

export interface NewHook {
  name: string;
  url: string;
  on: string;
  ordering?: string;
}

export interface CreatedHook extends HookSecret {
  hook: Hook;
  replayed: boolean;
}

/** What an Idempotency-Key stores: the answer with the secret still sealed. */
interface StoredCreation {
  hook: Hook;
  sealedSecret: string;
  secretLastRotatedAt: string;
}

export async function createHook(deps: HooksDeps, tenantId: string, input: NewHook, idempotency?: IdempotencyRequest): Promise<CreatedHook> {
  checkHookFields(input);
  await deps.checkUrl?.(input.url);
  const id = newId("hook");
  const secret = generateHookSecret();
  const sealed = deps.secrets.seal(secret, id);
  const { value, replayed } = await withTransaction(deps.pool, (client) =>
    idempotent<StoredCreation>(client, tenantId, "hooks.create", idempotency, async () => {
      const { rows } = await client.query<HookRow>(
        `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
         VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, now(), now()) RETURNING *`,
        [id, tenantId, input.name, input.url, input.on, input.ordering || "none", sealed],
      );
      const row = rows[0];
      return { hook: hookFromRow(row), sealedSecret: sealed, secretLastRotatedAt: row.secret_last_rotated_at.toISOString() };
    }),
  );
  // A replay answers the first request's secret, opened from what was stored with the key.
  return { hook: value.hook, secret: deps.secrets.open(value.sealedSecret, value.hook.id), secretLastRotatedAt: value.secretLastRotatedAt, replayed };
}

export async function getHook(db: Queryable, tenantId: string, id: string): Promise<Hook> {
  return hookFromRow(await loadHookRow(db, tenantId, id));
}

export async function loadHookRow(db: Queryable, tenantId: string, id: string): Promise<HookRow> {
  if (!isHookId(id)) throw hookNotFound(id);
  const { rows } = await db.query<HookRow>(`SELECT * FROM hooks WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  if (rows.length === 0) throw hookNotFound(id);
  return rows[0];
}

export async function listHooks(db: Queryable, tenantId: string, limit: number, cursor?: string | null): Promise<Page<Hook>> {
  const before = decodeCursor(cursor);
  const { rows } = await db.query<HookRow>(`SELECT * FROM hooks WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`, [
    tenantId,
    before,
    limit + 1,
  ]);
  const page = toPage(rows, limit);
  return { data: page.data.map(hookFromRow), nextCursor: page.nextCursor };
}

export interface HookChanges {
  name?: string;
  url?: string;
  on?: string;
  status?: string;
  ordering?: string;
}

/**
 * Applies the fields present; a paused hook gets nothing queued until it is active again. Resuming
 * moves `active_since` to now: deliveries of earlier events still queued are dropped on arrival.
 * Turning per-entity ordering off releases what waits in the hook's entity queues, unordered;
 * turning it on moves the deliveries waiting for a retry into their entities' queues (an attempt
 * on its way meanwhile is moved when its failure is recorded: delivery.ts).
 */
export async function updateHook(
  deps: Pick<HooksDeps, "pool" | "checkUrl" | "hookChanges"> & { topology: Topology },
  tenantId: string,
  id: string,
  changes: HookChanges,
): Promise<Hook> {
  checkHookFields(changes);
  if (changes.url !== undefined) await deps.checkUrl?.(changes.url);
  if (!isHookId(id)) throw hookNotFound(id);
  const updated = await withTransaction(deps.pool, async (db) => {
    const hook = await applyHookChanges(db, tenantId, id, changes);
    if (changes.ordering === "none") await queueDeliveries(db, deps.topology, await releaseOrderedDeliveries(db, id), currentTransactionId());
    else if (changes.ordering === "perEntity") await queueDeliveries(db, deps.topology, await orderPendingRetries(db, id), currentTransactionId());
    return hook;
  });
  deps.hookChanges?.changed();
  return updated;
}

async function applyHookChanges(db: Queryable, tenantId: string, id: string, changes: HookChanges): Promise<Hook> {
  const { rows } = await db.query<HookRow>(
    `UPDATE hooks SET name = COALESCE($3, name), url = COALESCE($4, url), on_kind = COALESCE($5, on_kind),
            status = COALESCE($6, status), ordering = COALESCE($7, ordering),
            active_since = CASE WHEN status = 'paused' AND $6 = 'active' THEN now() ELSE active_since END,
            -- A resume starts afresh: the reason of an automatic pause and the failing streak go.
            disabled_reason = CASE WHEN $6 = 'active' THEN NULL ELSE disabled_reason END,
            failing_since = CASE WHEN $6 = 'active' THEN NULL ELSE failing_since END, updated_at = now()
      WHERE tenant_id = $1 AND id = $2 RETURNING *`,
    [tenantId, id, changes.name ?? null, changes.url ?? null, changes.on ?? null, changes.status ?? null, changes.ordering ?? null],
  );
  if (rows.length === 0) throw hookNotFound(id);
  return hookFromRow(rows[0]);
}

/**
 * Deletes the hook with its executions; deliveries still queued for it are dropped on arrival.
 * Executions have no foreign key to hooks (migration 012): recording an attempt locks its hook's
 * row and inserts nothing for a hook that is gone, and the hook's row is deleted first, after every
 * recording that locked it has committed, so the second statement (a later snapshot) sees them all.
 */
export async function deleteHook(deps: Pick<HooksDeps, "pool" | "hookChanges">, tenantId: string, id: string): Promise<void> {
  if (!isHookId(id)) throw hookNotFound(id);
  await withTransaction(deps.pool, async (db) => {
    const { rowCount } = await db.query(`DELETE FROM hooks WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    if (rowCount === 0) throw hookNotFound(id);
    await db.query(`DELETE FROM executions WHERE hook_id = $1`, [id]);
  });
  deps.hookChanges?.changed();
}

/**
 * Replaces the secret. Deliveries are signed with the secret read when they are sent, so from
 * this commit on, nothing (not even a delivery queued before) is signed with the old one. The
 * hook's signing lock is taken first (signing-lock.ts): that waits for attempts that have read
 * the old secret and are signing with it, and makes the ones that read next wait for this commit
 * and sign with the new secret.
 */
export async function rotateHookSecret(deps: HooksDeps, tenantId: string, id: string): Promise<HookSecret> {
  if (!isHookId(id)) throw hookNotFound(id);
  const secret = generateHookSecret();
  const sealed = deps.secrets.seal(secret, id);
  const { rows } = await withTransaction(deps.pool, async (client) => {
    await lockForRotation(client, id);
    return client.query<{ secret_last_rotated_at: Date }>(
      `UPDATE hooks SET secret_sealed = $3, secret_last_rotated_at = now(), updated_at = now()
        WHERE tenant_id = $1 AND id = $2 RETURNING secret_last_rotated_at`,
      [tenantId, id, sealed],
    );
  });
  if (rows.length === 0) throw hookNotFound(id);
  deps.hookChanges?.changed();
  return { secret, secretLastRotatedAt: rows[0].secret_last_rotated_at.toISOString() };
}
