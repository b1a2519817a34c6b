// POST /hooks/{id}/executions/{executionId}/retry: the execution's event is queued for one more
// delivery to its hook now (trigger "manual", a single attempt). It goes through DELIVERIES
// like every delivery, so the answer (202) means it is stored and will be sent.
import { currentTransactionId } from "@waybill/platform/context.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { manualDeliveryId } from "./delivery-message.js";
import { getExecution } from "./executions.js";
import { queueDeliveries } from "./fan-out.js";
import { hookPaused, loadHookRow } from "./hooks.js";

export interface RedeliveryDeps {
  pool: Pool;
  topology: Topology;
}

export async function retryExecution(deps: RedeliveryDeps, tenantId: string, hookId: string, executionId: string): Promise<{ eventId: string }> {
  const hook = await loadHookRow(deps.pool, tenantId, hookId);
  if (hook.status !== "active") throw hookPaused(hookId);
  const execution = await getExecution(deps.pool, tenantId, hookId, executionId);
  // Events from EVENTS are in the event log; webhook.test events in test_events.
  const { rows } = await deps.pool.query<{ event: string }>(
    `SELECT event::text AS event FROM event_log WHERE tenant_id = $1 AND id = $2
     UNION ALL
     SELECT event::text FROM test_events WHERE tenant_id = $1 AND id = $2 AND hook_id = $3
     LIMIT 1`,
    [tenantId, execution.eventId, hookId],
  );
  if (rows.length === 0) throw appError("event_not_found", `The event ${execution.eventId} of this execution is no longer kept.`);
  await withTransaction(deps.pool, (client) =>
    queueDeliveries(
      client,
      deps.topology,
      [
        {
          deliveryId: manualDeliveryId(execution.eventId, hookId),
          tenantId,
          hookId,
          trigger: "manual",
          eventId: execution.eventId,
          eventKind: execution.eventKind,
          eventJson: rows[0].event,
        },
      ],
      currentTransactionId(),
    ),
  );
  return { eventId: execution.eventId };
}
