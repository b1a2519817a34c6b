// Revocation broadcast, the sending side: every edge drops a revoked token from its cache and the
// MQTT gateway closes its device sessions (receiving: packages/contracts/identity-client).
// The revocation goes into identity's outbox in the transaction that revokes the token,
// and the outbox relay publishes it to JetStream (stream REVOCATIONS), retrying until the server
// acknowledges it. A plain core publish could vanish while identity's connection is down or
// half-open, and edges that stayed connected would never hear of it.
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Queryable } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendMessages } from "@waybill/platform/outbox.js";
import type { Revocation } from "@waybill/contracts/identity-client/revocation-watch.js";
import { revocationsSubject } from "@waybill/contracts/identity/revocations.js";

/** Kind of the outbox rows that carry revocations (not a catalog event: never in EVENTS). */
const REVOCATION_OUTBOX_KIND = "identity.token_revoked";

/** Queues the revocation in the outbox, inside the caller's transaction. */
export async function recordRevocation(db: Queryable, topology: Topology, revocation: Revocation): Promise<void> {
  await appendMessages(db, [
    {
      id: newId("evt"),
      tenantId: revocation.tenantId,
      kind: REVOCATION_OUTBOX_KIND,
      subject: revocationsSubject(topology),
      body: { tenantId: revocation.tenantId, tokenId: revocation.tokenId },
      transactionId: currentTransactionId(),
    },
  ]);
}
