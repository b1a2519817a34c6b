// Auto-disable: a hook whose every delivery attempt has failed for WEBHOOK_DISABLE_AFTER is paused
// by the system, with the reason on the hook (`disabledReason`) and an event `webhook.disabled`
// written in the same transaction; resuming it (PUT status active) clears both. Retrying a
// receiver that has been dead for days forever only costs both sides. Every replica runs the
// check; the UPDATE's condition lets only one of them pause a given hook.
import { Counter, type Registry } from "prom-client";
import type { Pool } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import type { HookChangeSignal } from "./hook-changes.js";

export const AUTO_DISABLED_METRIC = "waybill_webhooks_auto_disabled_total";
export const DEFAULT_WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** How often the check runs: a quarter of the period, between 250 ms and a minute. */
export function disableCheckInterval(disableAfterMs: number): number {
  return Math.min(60_000, Math.max(250, Math.floor(disableAfterMs / 4)));
}

export interface DisabledHook {
  id: string;
  tenantId: string;
  reason: string;
}

/** Pauses every active hook failing for at least `disableAfterMs`; answers which. */
export async function disableFailingHooks(pool: Pool, topology: Topology, disableAfterMs: number): Promise<DisabledHook[]> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; tenant_id: string; name: string; url: string; failing_since: Date; disabled_reason: string }>(
      `UPDATE hooks
          SET status = 'paused', updated_at = now(),
              disabled_reason = 'Every delivery has failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                                || '; Waybill paused the hook. Fix the receiver, then resume the hook (and recover what it missed).'
        WHERE status = 'active' AND failing_since IS NOT NULL AND failing_since <= now() - make_interval(secs => $1::double precision / 1000)
        RETURNING id, tenant_id, name, url, failing_since, disabled_reason`,
      [disableAfterMs],
    );
    await appendEvents(
      client,
      topology,
      rows.map((row) => ({
        tenantId: row.tenant_id,
        kind: "webhook.disabled" as const,
        payload: { hookId: row.id, name: row.name, url: row.url, disabledReason: row.disabled_reason, failingSince: row.failing_since.toISOString() },
      })),
    );
    return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id, reason: row.disabled_reason }));
  });
}

export interface AutoDisableDeps {
  pool: Pool;
  topology: Topology;
  logger: Logger;
  disableAfterMs: number;
  registry?: Registry;
  /** Told once the pauses have committed, so that what the intake signed for those hooks is not sent. */
  hookChanges?: HookChangeSignal;
}

/** Runs the check periodically until stopped. */
export function startAutoDisable(deps: AutoDisableDeps): () => Promise<void> {
  const paused = new Counter({
    name: AUTO_DISABLED_METRIC,
    help: "Hooks the system paused because every delivery failed for WEBHOOK_DISABLE_AFTER",
    registers: deps.registry ? [deps.registry] : [],
  });
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = disableFailingHooks(deps.pool, deps.topology, deps.disableAfterMs).then(
      (disabled) => {
        if (disabled.length > 0) deps.hookChanges?.changed();
        paused.inc(disabled.length);
        for (const hook of disabled)
          deps.logger.warn({ hookId: hook.id, tenantId: hook.tenantId }, "hook paused: every delivery failed for WEBHOOK_DISABLE_AFTER");
      },
      (error) => deps.logger.warn({ err: error }, "auto-disable check failed; trying again"),
    );
  }, disableCheckInterval(deps.disableAfterMs));
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
