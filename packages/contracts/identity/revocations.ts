// Token revocations: identity publishes each one (through its outbox) to a stream of its own,
// REVOCATIONS, so that a publish is retried until stored; edges and gateways hear them on a plain
// subscription (identity-client/revocation-watch.ts) and nobody replays them. The subject is a
// contract between identity and its clients, hence here; identity's runtime declares the stream.
import { DiscardPolicy, nanos, RetentionPolicy, type StreamDeclaration, type Topology } from "@waybill/platform/nats.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A revocation only has to be accepted; a day is room enough for a relay that lagged. */
export const REVOCATIONS_MAX_AGE_MS = DAY_MS;

/** Subject of token revocations: `identity.revocations`. */
export const revocationsSubject = (topology: Topology): string => topology.subject("identity", "revocations");

export const REVOCATIONS_STREAM: StreamDeclaration = (topology) => ({
  name: topology.streamName("REVOCATIONS"),
  subjects: [revocationsSubject(topology)],
  retention: RetentionPolicy.Limits,
  max_age: nanos(REVOCATIONS_MAX_AGE_MS),
  discard: DiscardPolicy.Old,
});
