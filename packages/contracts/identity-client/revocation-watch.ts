// Receiving token revocations (identity sends them: services/identity/revocations.ts). A core
// subscription on the REVOCATIONS subject (a stream's subject is still delivered to core
// subscribers). A subscriber that was disconnected may have missed messages, so it is told of
// the gap on reconnect and clears its whole cache; cached answers expire anyway.
import type { Bus } from "@waybill/platform/nats.js";
import { revocationsSubject as revocationsSubjectOf } from "../identity/revocations.js";

export interface Revocation {
  tenantId: string;
  /** The API token (tok_…) or console session (ses_…) that ended. */
  tokenId: string;
}

export function revocationsSubject(bus: Bus): string {
  return revocationsSubjectOf(bus.topology);
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
