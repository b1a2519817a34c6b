// What every Waybill process installs before it opens its first gRPC channel, server or NATS
// connection: replacements that keep each gRPC call's and each NATS request's objects from
// outliving young-generation collections, and a NATS reply from building an Error it discards
// (async-resource-bind.ts, in-flight-collections.ts, nats-requests.ts say why). runMain and the
// launcher call it.
import { installAsyncResourceBind } from "./async-resource-bind.js";
import { installInFlightCollections } from "./in-flight-collections.js";
import { installNatsRequestFixes } from "./nats-requests.js";

export function installRuntimeFixes(): void {
  installAsyncResourceBind();
  installInFlightCollections();
  installNatsRequestFixes();
}
