// Two changes to how nats.js 3.4 keeps a request awaiting its reply. Every JetStream publish is
// one such request (the stream's acknowledgement is the reply), so each service pays them per
// message, the MQTT gateway twice per reading (INGRESS, then the reading's event).
//
// 1. When the reply comes, RequestOne#resolver settles the request and then calls cancel(), which
//    builds `new RequestError("cancelled")` (capturing a stack trace) only to reject a promise
//    already resolved, a no-op: a visible share of the gateway's CPU under device load. Here a
//    reply settles the request and releases its timer and table entry without it; errors and
//    timeouts take nats.js's own path.
// 2. The requests awaiting a reply sit in one Map per connection that lives as long as the
//    connection, with entries coming and going: once that Map is old, V8 keeps every table it
//    rehashes into, with the entries, through young-generation collections (string-key-map.ts),
//    so every publish's objects survived; a dictionary object does not.
//
// Both belong upstream (docs/upstream-reports.md has the reproductions). These are nats.js
// internals (its "./internal" export): runtime-fixes.ts installs them only on the nats.js version
// they were written for, and nats-requests.test.ts shows each is still needed.
import { MuxSubscription, RequestOne } from "@nats-io/nats-core/internal";
import { StringKeyMap } from "./string-key-map.js";

const INSTALLED = Symbol.for("waybill.natsRequests");

export function installNatsRequestFixes(): void {
  const registry = globalThis as unknown as Record<symbol, boolean | undefined>;
  if (registry[INSTALLED]) return;
  Object.defineProperty(registry, INSTALLED, { value: true });
  installRepliesWithoutError();
  installStringKeyRequestTables();
}

/** 1: a reply settles its request without building the discarded "cancelled" error. */
export function installRepliesWithoutError(): void {
  const resolver = RequestOne.prototype.resolver;
  RequestOne.prototype.resolver = function (this: RequestOne, err, msg) {
    if (err) return resolver.call(this, err, msg);
    this.timer?.cancel();
    this.deferred.resolve(msg);
    this.mux.cancel(this);
  };
}

/** 2: each connection's table of requests awaiting a reply becomes a StringKeyMap at its first request. */
export function installStringKeyRequestTables(): void {
  const add = MuxSubscription.prototype.add;
  MuxSubscription.prototype.add = function (this: MuxSubscription, request) {
    if (!(this.reqs instanceof StringKeyMap)) this.reqs = new StringKeyMap(this.reqs) as unknown as MuxSubscription["reqs"];
    return add.call(this, request);
  };
}
