// Array-backed collections for the HTTP/2 streams and gRPC calls in flight, in place of the Map
// and Sets that Node's HTTP/2 sessions and grpc-js's transports keep them in.
//
// V8 rehashes a Map or Set into a new table now and then (set, delete and set again fill a table).
// The old table keeps the entries it had and a pointer to the new table, for iterators still
// walking it. While tables are young that costs nothing: they die young. But a full collection
// promotes the table in use to the old generation; when it is next rehashed it is dead, yet V8's
// young-generation collector (the scavenger) keeps everything old objects point to. So the next
// table survives, and the one after it, each holding the streams or calls in flight when it was
// replaced: from the first full collection on, every request's objects live until the next one,
// which promotes the table in use and starts the chain again. A plain Map of 8 rotating entries
// shows it: 14 bytes per set survive a scavenge before any full collection, 1.9 KB (the whole
// entry) after one.
//
// In the edge, one full collection during list load was enough: 1.6 MB then survived every
// scavenge, the socket buffers those requests held reached V8's external-memory trigger (64 MB)
// about once a second, and full collections never stopped (README, "Performance"). Copying the
// collections after each full collection did not hold. Collections that keep no hash table do:
// 0.2–0.3 KB per gRPC call survive, against 8.3 KB, after a full collection during the load.
//
// Node's session state and grpc-js's transport are internals (grpc-js is pinned):
// in-flight-collections.test.ts fails if either changes shape.
import http2 from "node:http2";
import { createRequire } from "node:module";
import { ArrayMap, ArraySet } from "./array-collections.js";

const INSTALLED = Symbol.for("waybill.inFlightCollections");

interface SessionState {
  streams?: unknown;
  pendingStreams?: unknown;
}
interface GrpcTransport {
  activeCalls?: unknown;
}

const isA = (value: unknown, tag: "Map" | "Set"): value is Map<unknown, unknown> | Set<unknown> => Object.prototype.toString.call(value) === `[object ${tag}]`; // Node's are its primordials' SafeMap, SafeSet

/** Gives an HTTP/2 session array-backed stream collections; false when it does not have the usual ones. */
export function useArrayCollections(session: http2.Http2Session): boolean {
  const key = Object.getOwnPropertySymbols(session).find((symbol) => symbol.description === "state");
  const state = key ? (session as unknown as Record<symbol, SessionState | undefined>)[key] : undefined;
  if (!state || !isA(state.streams, "Map") || !isA(state.pendingStreams, "Set")) return false;
  state.streams = new ArrayMap(state.streams as Map<unknown, unknown>);
  state.pendingStreams = new ArraySet(state.pendingStreams as Set<unknown>);
  return true;
}

/** Gives a grpc-js transport an array-backed set of active calls; false when it has none. */
export function useArrayActiveCalls(transport: GrpcTransport): boolean {
  if (!isA(transport.activeCalls, "Set")) return false;
  transport.activeCalls = new ArraySet(transport.activeCalls as Set<unknown>);
  return true;
}

/** From now on every HTTP/2 session (client and server) and grpc-js transport made gets them. */
export function installInFlightCollections(): void {
  const registry = globalThis as unknown as Record<symbol, boolean | undefined>;
  if (registry[INSTALLED]) return;
  Object.defineProperty(registry, INSTALLED, { value: true });

  const connect = http2.connect;
  http2.connect = function (this: unknown, ...args: unknown[]) {
    const session = (connect as (...a: unknown[]) => http2.ClientHttp2Session).apply(this, args);
    useArrayCollections(session);
    return session;
  } as typeof http2.connect;
  const createServer = http2.createServer;
  http2.createServer = function (this: unknown, ...args: unknown[]) {
    const server = (createServer as (...a: unknown[]) => http2.Http2Server).apply(this, args);
    // Added before grpc-js adds its own listener: the session has no stream yet.
    server.on("session", (session: http2.ServerHttp2Session) => void useArrayCollections(session));
    return server;
  } as typeof http2.createServer;

  // grpc-js makes one transport per connection, in Http2SubchannelConnector#connect.
  const { Http2SubchannelConnector } = createRequire(import.meta.url)("@grpc/grpc-js/build/src/transport.js") as {
    Http2SubchannelConnector: { prototype: { connect(...args: unknown[]): Promise<GrpcTransport> } };
  };
  const connectTransport = Http2SubchannelConnector.prototype.connect;
  Http2SubchannelConnector.prototype.connect = async function (this: unknown, ...args: unknown[]) {
    const transport = await connectTransport.apply(this, args);
    useArrayActiveCalls(transport);
    return transport;
  };
}
