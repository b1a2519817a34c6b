// Revocation broadcast: identity announces a revoked token on NATS; every edge drops it from its
// cache and the MQTT gateway closes its device sessions. Core NATS is enough: a subscriber that
// misses a message (disconnected) clears its whole cache on reconnect, and caches expire anyway.
import type { Bus } from "../platform/nats.js";

export interface Revocation {
  tenantId: string;
  tokenId: string;
}

export function revocationsSubject(bus: Bus): string {
  return bus.topology.revocationsSubject;
}

export function announceRevocation(bus: Bus, revocation: Revocation): void {
  bus.nc.publish(revocationsSubject(bus), JSON.stringify(revocation));
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
