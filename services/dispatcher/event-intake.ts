// What the dispatcher does with each event from EVENTS: record it in the tenant's event log and,
// in the same transaction, queue its deliveries to the hooks subscribed to its kind. A redelivered
// event is already in the log, so it is neither recorded nor fanned out twice. Events taken in
// at the same time share one transaction (see batcher.ts).
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { createBatcher } from "@waybill/platform/batcher.js";
import { recordAndFanOut, type IncomingEvent } from "./fan-out.js";

export interface EventIntakeDeps {
  pool: Pool;
  topology: Topology;
}

export interface Intake {
  event: EventEnvelope;
  fresh: boolean;
  deliveries: number;
}

export type TakeEvent = (tenantId: string, eventJson: string) => Promise<Intake>;

export function createEventIntake(deps: EventIntakeDeps): TakeEvent {
  // A transaction around the statement so that the outbox relay is woken by its commit.
  const take = createBatcher((events: IncomingEvent[]) => withTransaction(deps.pool, (client) => recordAndFanOut(client, deps.topology, events)));
  /** `eventJson` is the message as received; it becomes the body of every delivery. */
  return async (tenantId, eventJson) => {
    const event = JSON.parse(eventJson) as EventEnvelope;
    const { fresh, deliveries } = await take({ tenantId, event, eventJson });
    return { event, fresh, deliveries };
  };
}
