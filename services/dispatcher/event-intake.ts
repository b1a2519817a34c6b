// What the dispatcher does with each event from EVENTS: record it in the tenant's event log and,
// in the same transaction, queue its deliveries to the hooks subscribed to its kind. A redelivered
// event is already in the log, so it is neither recorded nor fanned out twice.
import { withTransaction, type Pool } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import type { Topology } from "../platform/nats.js";
import { recordEvent } from "./event-log.js";
import { fanOut } from "./fan-out.js";

export interface EventIntakeDeps {
  pool: Pool;
  topology: Topology;
}

export interface Intake {
  fresh: boolean;
  deliveries: number;
}

/** `eventJson` is the message as received; it becomes the body of every delivery. */
export async function takeEvent(deps: EventIntakeDeps, tenantId: string, eventJson: string): Promise<Intake & { event: EventEnvelope }> {
  const event = JSON.parse(eventJson) as EventEnvelope;
  return withTransaction(deps.pool, async (client) => {
    const fresh = await recordEvent(client, tenantId, event);
    const deliveries = fresh ? await fanOut(client, deps.topology, tenantId, event, eventJson) : 0;
    return { fresh, deliveries, event };
  });
}
