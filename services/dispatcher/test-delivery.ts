// POST /hooks/{id}/test: a webhook.test event delivered synchronously, signed like any other;
// the answer is its execution record. The event is kept so the execution can be retried.
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Pool } from "@waybill/platform/db.js";
import { EVENT_PAYLOADS, type EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { newId } from "@waybill/platform/ids.js";
import { fanOutDeliveryId } from "./delivery-message.js";
import type { Deliverer } from "./delivery.js";
import type { Execution } from "./executions.js";
import { hookNotFound, hookPaused, loadHookRow } from "./hooks.js";

export interface TestDeliveryDeps {
  pool: Pool;
  deliverer: Deliverer;
}

export async function testHook(deps: TestDeliveryDeps, tenantId: string, hookId: string, now: Date = new Date()): Promise<Execution> {
  const hook = await loadHookRow(deps.pool, tenantId, hookId);
  if (hook.status !== "active") throw hookPaused(hookId);
  const payload = EVENT_PAYLOADS["webhook.test"].parse({ hookId });
  const event: EventEnvelope = { id: newId("evt"), kind: "webhook.test", time: now.toISOString(), transactionId: currentTransactionId(), ...payload };
  await deps.pool.query(`INSERT INTO test_events (id, tenant_id, hook_id, event) VALUES ($1, $2, $3, $4)`, [event.id, tenantId, hookId, event]);
  const outcome = await deps.deliverer.attempt({
    deliveryId: fanOutDeliveryId(event.id, hookId),
    tenantId,
    hookId,
    trigger: "test",
    eventId: event.id,
    eventKind: event.kind,
    eventJson: JSON.stringify(event),
  });
  if (outcome.kind === "attempted") return outcome.execution;
  // Changed under our feet between the read above and the attempt.
  if (outcome.kind === "dropped" && outcome.reason === "hook gone") throw hookNotFound(hookId);
  if (outcome.kind === "dropped" && outcome.reason === "hook paused") throw hookPaused(hookId);
  throw appError("internal_error", `test delivery ended as ${outcome.kind}`);
}
