// Two changes to how nats.js 3.4 keeps a request awaiting its reply. Every JetStream publish is
// one such request (the stream's acknowledgement is the reply), so each service pays them per
// message, the MQTT gateway twice per reading (INGRESS, then the reading's event).
//
// 1. When the reply comes, RequestOne#resolver settles the request and then calls cancel(), which
//    builds `new RequestError("cancelled")` (capturing a stack trace) only to reject a promise
//    already resolved, a no-op. That one Error was 7 % of the gateway's CPU profile under device
//    load. Here a reply settles the request and releases its timer and table entry without it;
//    errors and timeouts take nats.js's own path.
// 2. The requests awaiting a reply sit in one Map per connection that lives as long as the
//    connection, with entries coming and going: the pattern that makes V8's rehashed tables keep
//    every entry alive through young-generation collections (in-flight-collections.ts). Measured
//    with JetStream publishes, 256 in flight: 51–255 bytes per publish survived a scavenge,
//    against 2–16 with the table in a dictionary object (string-key-map.ts).
//
// These are nats.js internals (its "./internal" export, pinned versions): nats-requests.test.ts
// fails if their shape changes.
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
