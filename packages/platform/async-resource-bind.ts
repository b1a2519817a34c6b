// AsyncResource#bind as Node 20 has it, less the cost of its deprecated `asyncResource` property.
//
// Node 20 defines that property (DEP0172) on every bound function with a getter and a setter made
// for that one function, each wrapped by util.deprecate, which makes the closure the wrapper's
// prototype. So every bind makes two functions with a hidden class of their own (a class per
// prototype). V8 files such classes in the prototype transitions of the shared function class
// through weak references, and its young-generation collector (the scavenger) treats weak
// references as strong: the closures, the bound function's target and all it reaches survive
// every scavenge and are freed only by a full collection.
//
// node:http2 binds one function per client request (ClientHttp2Session#request), and every gRPC
// call is one: each call's objects (the stream, grpc-js's call chain, the caller's request and
// answer) were copied twice and promoted to the old generation. Measured with grpc-js unary calls
// alone, 8 at a time: 8.4 KB promoted per call and a full collection every 0.3 s, against 25 B and
// none with this bind. The edge under pages of 100 orders: 2.1 MB surviving each scavenge and a
// full collection every 0.75 s, against 0.23 MB and none (README, "Performance").
//
// This bind keeps the resource under a symbol and defines the accessor with one getter and one
// setter for all bound functions, so a bind makes no class of its own. Upstream:
// nodejs/node#58218 (deprecate's cost) and #58618 (removing the property).
import { AsyncResource } from "node:async_hooks";
import { deprecate } from "node:util";

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;
type BoundFunction = AnyFunction & { [RESOURCE]?: AsyncResource };

const RESOURCE = Symbol("asyncResource");
const INSTALLED = Symbol.for("waybill.asyncResourceBind");
const DEPRECATION = "The asyncResource property on bound functions is deprecated";

// One getter and one setter for all bound functions: that is what keeps their class shared.
const getResource = deprecate(
  function (this: BoundFunction) {
    return this[RESOURCE];
  },
  DEPRECATION,
  "DEP0172",
);
const setResource = deprecate(
  function (this: BoundFunction, resource: AsyncResource) {
    this[RESOURCE] = resource;
  },
  DEPRECATION,
  "DEP0172",
);

/** What `resource.bind(fn, thisArg)` returns: fn, run in the resource's async context. */
export function bindToAsyncResource(resource: AsyncResource, fn: AnyFunction, thisArg?: unknown): BoundFunction {
  if (typeof fn !== "function") {
    throw Object.assign(new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`), { code: "ERR_INVALID_ARG_TYPE" });
  }
  const bound: BoundFunction =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (resource.runInAsyncScope.bind(resource, fn, thisArg) as AnyFunction);
  Object.defineProperty(bound, "length", { configurable: true, enumerable: false, writable: false, value: fn.length });
  Object.defineProperty(bound, RESOURCE, { configurable: true, enumerable: false, writable: true, value: resource });
  Object.defineProperty(bound, "asyncResource", { configurable: true, enumerable: true, get: getResource, set: setResource });
  return bound;
}

/** Makes AsyncResource#bind (and so AsyncResource.bind) this module's; once per process is enough. */
export function installAsyncResourceBind(): void {
  const prototype = AsyncResource.prototype as unknown as Record<symbol, boolean> & { bind: unknown };
  if (prototype[INSTALLED]) return;
  Object.defineProperty(prototype, "bind", {
    configurable: true,
    enumerable: false,
    writable: true,
    value: function bind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown) {
      return bindToAsyncResource(this, fn, thisArg);
    },
  });
  Object.defineProperty(prototype, INSTALLED, { value: true });
}
