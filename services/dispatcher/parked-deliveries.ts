// Parked deliveries: what a hook whose receiver stays down would otherwise keep cycling through
// JetStream. A delivery that finds its hook's breaker open comes back later each time
// (lane-policy.ts heldBackDelay); once it would wait WEBHOOK_PARK_AFTER or longer, or its hook
// has parked deliveries already, it is written here and its DELIVERIES message acknowledged. Every message a JetStream consumer holds back
// costs nats-server a redelivery timer, and it reviews all of them each time one expires: a
// receiver down for hours, with its deliveries growing by the minute, made that review the
// largest part of nats-server's work and slowed every other hook's deliveries with it.
//
// Parked deliveries go back to DELIVERIES (deliveries-store.ts, the same message id) when the
// receiver answers again: the release round (startParkedRelease) sends one of a hook's parked
// deliveries as a probe whenever its breaker lets a delivery through, and all of them once a
// delivery to the hook has succeeded. A released delivery is an ordinary one: its attempt reads
// the hook and its executions first, so a paused hook, a resume since its event, or a success of
// another delivery of its event (recover) still drops it.
import type { Logger } from "@waybill/platform/logger.js";
import type { Pool, Queryable } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { DeliveryMessage } from "./delivery-message.js";
import type { StoreDelivery } from "./deliveries-store.js";

/** A delivery that would wait this long or longer for its hook's breaker is parked instead. */
export const DEFAULT_WEBHOOK_PARK_AFTER_MS = 5 * 60_000;
/** Parked deliveries of one hook released per statement once its receiver answers again. */
export const RELEASE_BATCH = 500;
/** Hooks with parked deliveries looked at per release round. */
export const RELEASE_HOOKS_PER_ROUND = 1_000;

/** How often the release round runs: a quarter of the park threshold, between 250 ms and 30 s. */
export function releaseInterval(parkAfterMs: number): number {
  return Math.min(30_000, Math.max(250, Math.floor(parkAfterMs / 4)));
}

export interface Parked {
  delivery: DeliveryMessage;
  transactionId?: string;
  traceparent?: string;
}

/**
 * Parks deliveries (one statement for many). A delivery whose hook is gone is not kept (its
 * attempt would be dropped anyway); one parked already stays as it is.
 */
export async function parkDeliveries(db: Queryable, parked: Parked[]): Promise<void> {
  const input = parked.map(({ delivery, transactionId, traceparent }) => ({
    delivery_id: delivery.deliveryId,
    tenant_id: delivery.tenantId,
    hook_id: delivery.hookId,
    message: delivery,
    transaction_id: transactionId ?? null,
    traceparent: traceparent ?? null,
  }));
  await db.query(
    `INSERT INTO parked_deliveries (delivery_id, tenant_id, hook_id, message, transaction_id, traceparent)
     SELECT r.delivery_id, r.tenant_id, r.hook_id, r.message, r.transaction_id, r.traceparent
       FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id text, tenant_id text, hook_id text, message jsonb, transaction_id text, traceparent text)
       JOIN hooks h ON h.tenant_id = r.tenant_id AND h.id = r.hook_id
     ON CONFLICT (delivery_id) DO NOTHING`,
    [JSON.stringify(input)],
  );
}

/** Active hooks with parked deliveries, and how many each has. */
export async function hooksWithParked(db: Queryable, limit = RELEASE_HOOKS_PER_ROUND): Promise<Map<string, number>> {
  const { rows } = await db.query<{ hook_id: string; parked: number }>(
    `SELECT p.hook_id, count(*)::int AS parked
       FROM parked_deliveries p JOIN hooks h ON h.id = p.hook_id AND h.status = 'active'
      GROUP BY p.hook_id ORDER BY p.hook_id LIMIT $1`,
    [limit],
  );
  return new Map(rows.map((row) => [row.hook_id, row.parked]));
}

/**
 * Sends up to `limit` of a hook's parked deliveries, oldest first, back to DELIVERIES and forgets
 * them; answers how many. They are forgotten only once JetStream has stored them: a crash in
 * between sends them again later, and their attempts recognise what was delivered.
 */
export async function releaseParked(pool: Pool, store: StoreDelivery, hookId: string, limit: number): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{
      delivery_id: string;
      message: DeliveryMessage;
      transaction_id: string | null;
      traceparent: string | null;
      parked: string;
    }>(
      `SELECT delivery_id, message, transaction_id, traceparent, (extract(epoch FROM parked_at) * 1000000)::bigint::text AS parked
         FROM parked_deliveries WHERE hook_id = $1 ORDER BY parked_at, delivery_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [hookId, limit],
    );
    if (rows.length === 0) return 0;
    // A message id of its own per parking: the delivery's id alone would be taken by JetStream for
    // a copy of the message it was parked from (within the duplicate window) and dropped; a
    // release repeated after a crash has the same one, and is dropped as the copy it is.
    await Promise.all(
      rows.map((row) =>
        store(row.message, {
          transactionId: row.transaction_id ?? undefined,
          traceparent: row.traceparent ?? undefined,
          msgId: `${row.delivery_id}:parked:${row.parked}`,
        }),
      ),
    );
    await client.query("DELETE FROM parked_deliveries WHERE delivery_id = ANY($1::text[])", [rows.map((row) => row.delivery_id)]);
    return rows.length;
  });
}

export interface ParkedReleaseDeps {
  pool: Pool;
  store: StoreDelivery;
  logger: Logger;
  /** How long this replica's breaker of the hook still holds its deliveries back (0: not at all). */
  blockedForMs(hookId: string): number;
  intervalMs: number;
  /** After each round's count: the deliveries parked at its start, all hooks together. */
  onRound?(parked: number): void;
  onReleased?(count: number): void;
}

export interface ParkedRelease {
  /** A delivery to `hookId` was parked here. */
  parked(hookId: string): void;
  /** Whether `hookId` had parked deliveries at the last round (or has been parked here since). */
  has(hookId: string): boolean;
  /** A delivery to `hookId` succeeded: its parked deliveries go back at the next round. */
  succeeded(hookId: string): void;
  /** One round now (the timer runs them on its own); for tests. */
  round(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The release rounds: every `intervalMs`, for each active hook with parked deliveries, none while
 * its breaker holds deliveries back here, a probe when it lets one through (one delivery, an
 * attempt like any other; twice as many at each round that finds the breaker still letting them
 * through), and all of them once a delivery to it has succeeded since the last round.
 */
export function startParkedRelease(deps: ParkedReleaseDeps): ParkedRelease {
  /** Hooks with parked deliveries at the last round (or parked here since). */
  const parkedHooks = new Set<string>();
  /** Of those, the ones a delivery succeeded to since their last release. */
  const answered = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  /** Each hook's next probe size: doubled while probes meet no open breaker, back to 1 when one does. */
  const probeSizes = new Map<string, number>();

  const releaseHook = async (hookId: string): Promise<number> => {
    if (deps.blockedForMs(hookId) > 0) {
      probeSizes.delete(hookId);
      return 0;
    }
    if (!answered.delete(hookId)) {
      // A probe that neither failed nor succeeded (dropped: the hook was resumed since, or its
      // event was recovered) says nothing of the receiver: the next one is twice as large, so
      // such parked deliveries do not go back one per round.
      const size = probeSizes.get(hookId) ?? 1;
      probeSizes.set(hookId, Math.min(RELEASE_BATCH, size * 2));
      return releaseParked(deps.pool, deps.store, hookId, size);
    }
    probeSizes.delete(hookId);
    let released = 0;
    for (;;) {
      const count = await releaseParked(deps.pool, deps.store, hookId, RELEASE_BATCH);
      released += count;
      if (count < RELEASE_BATCH || stopped) return released;
    }
  };

  const round = async (): Promise<void> => {
    const hooks = await hooksWithParked(deps.pool);
    deps.onRound?.([...hooks.values()].reduce((sum, n) => sum + n, 0));
    parkedHooks.clear();
    for (const hookId of hooks.keys()) parkedHooks.add(hookId);
    for (const hookId of answered) if (!parkedHooks.has(hookId)) answered.delete(hookId);
    for (const hookId of probeSizes.keys()) if (!parkedHooks.has(hookId)) probeSizes.delete(hookId);
    for (const [hookId, parked] of hooks) {
      if (stopped) return;
      const released = await releaseHook(hookId);
      if (released === 0) continue;
      deps.onReleased?.(released);
      deps.logger.info({ hookId, released, parked: parked - released }, "parked deliveries released");
    }
  };

  const runRound = (): Promise<void> => {
    running = running
      .then(round)
      .catch((error) => deps.logger.warn({ err: (error as Error).message }, "parked deliveries could not be released; trying again at the next round"));
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void runRound();
  }, deps.intervalMs);

  return {
    parked(hookId) {
      parkedHooks.add(hookId);
    },
    has(hookId) {
      return parkedHooks.has(hookId);
    },
    succeeded(hookId) {
      if (parkedHooks.has(hookId)) answered.add(hookId);
    },
    round: runRound,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
