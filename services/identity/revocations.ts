// Revocation broadcast: every edge drops a revoked token from its cache and the MQTT gateway
// closes its device sessions.
// Sending: the revocation goes into identity's outbox in the transaction that revokes the token,
// and the outbox relay publishes it to JetStream (stream REVOCATIONS), retrying until the server
// acknowledges it. A plain core publish could vanish while identity's connection is down or
// half-open, and edges that stayed connected would never hear of it.
// Receiving: a core subscription on the same subject (a stream's subject is still delivered to
// core subscribers). A subscriber that was disconnected may have missed messages; it clears its
// whole cache on reconnect, and cached answers expire anyway.
import { markOutboxWritten, type Queryable } from "../platform/db.js";
import { newId } from "../platform/ids.js";
import { TENANT_ID_NATS_HEADER, type Bus, type Topology } from "../platform/nats.js";

export interface Revocation {
  tenantId: string;
  tokenId: string;
}

/** Kind of the outbox rows that carry revocations (not a catalog event: never in EVENTS). */
const REVOCATION_OUTBOX_KIND = "identity.token_revoked";

export function revocationsSubject(bus: Bus): string {
  return bus.topology.revocationsSubject;
}

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

/** Calls `onRevoked` for each revocation, and `onGap` when messages may have been missed. */
export function watchRevocations(bus: Bus, handlers: { onRevoked(r: Revocation): void; onGap(): void }): () => void {
  const subscription = bus.nc.subscribe(revocationsSubject(bus), {
    callback: (error, message) => {
      if (error) return;
      try {
        handlers.onRevoked(message.json<Revocation>());
      } catch {
        handlers.onGap(); // unreadable: be safe
      }
    },
  });
  let stopped = false;
  void (async () => {
    for await (const status of bus.nc.status()) {
      if (stopped) break;
      if (status.type === "reconnect") handlers.onGap();
    }
  })().catch(() => {});
  return () => {
    stopped = true;
    subscription.unsubscribe();
  };
}
