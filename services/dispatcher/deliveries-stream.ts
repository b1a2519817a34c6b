// DELIVERIES, the dispatcher's own stream: one message per hook × event (and each redelivery or
// test), a work queue that the dispatcher alone writes (through its outbox) and consumes. Declared
// here, where it is owned; the platform creates and keeps it (ensureStreams) because the
// dispatcher's runtime declares it.
import { RetentionPolicy } from "@nats-io/jetstream";
import type { StreamDeclaration, Topology } from "@waybill/platform/nats.js";

export const deliveriesStreamName = (topology: Topology): string => topology.streamName("DELIVERIES");

/** Where the deliveries of one hook are published: `deliveries.<hookId>`. */
export const deliveriesSubject = (topology: Topology, hookId: string): string => topology.subject("deliveries", hookId);

export const DELIVERIES_STREAM: StreamDeclaration = (topology) => ({
  name: deliveriesStreamName(topology),
  subjects: [topology.subject("deliveries", ">")],
  retention: RetentionPolicy.Workqueue,
});
