// AsyncResource#bind as Node has it, less the cost of its deprecated `asyncResource` property.
//
// Node 20 defines that property (DEP0172) on every bound function with a getter and a setter made
// for that one function, each wrapped by util.deprecate, which makes the closure the wrapper's
// prototype. So every bind makes two functions with a hidden class of their own (a class per
// prototype). V8 files such classes in the prototype transitions of the shared function class
// through weak references, and its young-generation collector (the scavenger) treats weak
// references as strong: the closures, the bound function's target and all it reaches survive
// every scavenge and are freed only by a full collection. Node 24 no longer sets the prototype
// there, but still defines a getter and a setter per bound function, and still keeps more of
// each request than this bind does (async-resource-bind.test.ts measures both).
//
// node:http2 binds one function per client request (ClientHttp2Session#request), and every gRPC
// call is one: on Node 20 each call's objects were copied twice and promoted to the old
// generation, and full collections followed several times a second under load.
//
// This bind keeps the resource under a symbol and defines the accessor with one getter and one
// setter for all bound functions, so a bind makes no class of its own. Upstream:
// nodejs/node#58218 (deprecate's cost) and #58618 (removing the property); docs/upstream-reports.md.
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
