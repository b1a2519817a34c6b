// Revocation broadcast, the sending side: every edge drops a revoked token from its cache and the
// MQTT gateway closes its device sessions (receiving: packages/contracts/identity-client).
// The revocation goes into identity's outbox in the transaction that revokes the token,
// and the outbox relay publishes it to JetStream (stream REVOCATIONS), retrying until the server
// acknowledges it. A plain core publish could vanish while identity's connection is down or
// half-open, and edges that stayed connected would never hear of it.
import { markOutboxWritten, type Queryable } from "../platform/db.js";
import { newId } from "../platform/ids.js";
import { TENANT_ID_NATS_HEADER, type Topology } from "../platform/nats.js";
import type { Revocation } from "../../packages/contracts/identity-client/revocation-watch.js";

/** Kind of the outbox rows that carry revocations (not a catalog event: never in EVENTS). */
const REVOCATION_OUTBOX_KIND = "identity.token_revoked";

/** Queues the revocation in the outbox, inside the caller's transaction. */
export async function recordRevocation(db: Queryable, topology: Topology, revocation: Revocation): Promise<void> {
  await db.query("INSERT INTO outbox (id, tenant_id, kind, subject, event, headers) VALUES ($1, $2, $3, $4, $5, $6)", [
    newId("evt"),
    revocation.tenantId,
    REVOCATION_OUTBOX_KIND,
    topology.revocationsSubject,
    JSON.stringify({ tenantId: revocation.tenantId, tokenId: revocation.tokenId }),
    JSON.stringify({ [TENANT_ID_NATS_HEADER]: revocation.tenantId }),
  ]);
  markOutboxWritten(db);
}
