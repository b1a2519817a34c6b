// What the dispatcher does with each event from EVENTS: record it in the tenant's event log and,
// in the same transaction, queue its deliveries to the hooks subscribed to its kind. A redelivered
// event is already in the log, so it is neither recorded nor fanned out twice.
import { withTransaction, type Pool } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import type { Topology } from "../platform/nats.js";
import { recordAndFanOut } from "./fan-out.js";

export interface EventIntakeDeps {
  pool: Pool;
  topology: Topology;
}

export interface Intake {
  event: EventEnvelope;
  fresh: boolean;
  deliveries: number;
}

/** `eventJson` is the message as received; it becomes the body of every delivery. */
export async function takeEvent(deps: EventIntakeDeps, tenantId: string, eventJson: string): Promise<Intake> {
  const event = JSON.parse(eventJson) as EventEnvelope;
  // A transaction around the one statement so that the outbox relay is woken by its commit.
  const { fresh, deliveries } = await withTransaction(deps.pool, (client) => recordAndFanOut(client, deps.topology, tenantId, event, eventJson));
  return { event, fresh, deliveries };
}
