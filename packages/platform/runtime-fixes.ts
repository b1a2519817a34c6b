// What every Waybill process installs before it opens its first gRPC channel or server: the two
// replacements that keep each gRPC call's objects from outliving young-generation collections
// (async-resource-bind.ts, in-flight-collections.ts say why). runMain and the launcher call it.
import { installAsyncResourceBind } from "./async-resource-bind.js";
import { installInFlightCollections } from "./in-flight-collections.js";

export function installRuntimeFixes(): void {
  installAsyncResourceBind();
  installInFlightCollections();
}
