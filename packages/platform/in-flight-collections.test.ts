import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ArrayMap, ArraySet } from "./array-collections.js";
import { bytesUnaryMethod } from "./testing/grpc-unary-methods.js";
import { useArrayActiveCalls, useArrayCollections } from "./in-flight-collections.js";
import { runModuleScript } from "./testing/module-script.js";

const MODULE_URL = pathToFileURL(`${import.meta.dirname}/in-flight-collections.ts`).href;
const BIND_MODULE_URL = pathToFileURL(`${import.meta.dirname}/async-resource-bind.ts`).href;
const METHODS_URL = pathToFileURL(`${import.meta.dirname}/testing/grpc-unary-methods.ts`).href;
const SERVICE = { call: bytesUnaryMethod("/t.T/Call") };

/**
 * gRPC unary calls, 8 at a time, from a fresh Node (the server here): one full collection during
 * the load, then the bytes per call that survive a scavenge over five rounds (median).
 */
async function bytesPerCallAfterFullCollection(install: boolean): Promise<number> {
  const server = new grpc.Server();
  const answer = Buffer.alloc(2000, 97);
  server.addService(SERVICE, { call: (_call: unknown, callback: (e: null, r: Buffer) => void) => callback(null, answer) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const script = `
    import grpc from "@grpc/grpc-js";
    import v8 from "node:v8";
    import { installInFlightCollections } from ${JSON.stringify(MODULE_URL)};
    import { installAsyncResourceBind } from ${JSON.stringify(BIND_MODULE_URL)};
    import { bytesUnaryMethod } from ${JSON.stringify(METHODS_URL)};
    installAsyncResourceBind(); // the other cause of the same survival, ruled out here
    if (${install}) installInFlightCollections();
    const service = { call: bytesUnaryMethod("/t.T/Call") };
    const client = new (grpc.makeGenericClientConstructor(service))("127.0.0.1:${port}", grpc.credentials.createInsecure());
    const call = () => new Promise((resolve, reject) => client.call(Buffer.from("x"), (e, r) => (e ? reject(e) : resolve(r))));
    const calls = (n) => Promise.all(Array.from({ length: 8 }, async () => { for (let i = 0; i < n / 8; i++) await call(); }));
    const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_used_size;
    await calls(2000);
    const during = calls(800);
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
    await during;
    const rounds = [];
    for (let round = 0; round < 5; round++) {
      gc({ type: "minor" });
      await calls(400);
      gc({ type: "minor" });
      rounds.push(young() / 400);
    }
    client.close();
    console.log(rounds.sort((a, b) => a - b)[2]);`;
  try {
    return Number((await runModuleScript(script, ["--expose-gc"])).split("\n").at(-1));
  } finally {
    server.forceShutdown();
  }
}

describe("array-backed collections", () => {
  it("answer as a Map and a Set do for what HTTP/2 sessions and grpc-js transports ask", () => {
    const map = new ArrayMap<number, string>([[1, "a"]]);
    map.set(3, "c").set(5, "e").set(3, "C");
    expect(map.delete(1)).toBe(true);
    expect(map.delete(1)).toBe(false);
    expect([map.size, map.get(3), map.get(5), map.get(1), map.has(5)]).toEqual([2, "C", "e", undefined, true]);
    const seen: [number, string][] = [];
    map.forEach((value, key) => {
      seen.push([key, value]);
      map.delete(key); // as a session destroying its streams
    });
    expect(seen.sort()).toEqual([
      [3, "C"],
      [5, "e"],
    ]);
    expect(map.size).toBe(0);

    const a = { id: "a" };
    const b = { id: "b" };
    const set = new ArraySet([a]).add(b).add(a);
    expect(set.size).toBe(2);
    expect([...set]).toEqual([a, b]);
    expect(set.delete(a)).toBe(true);
    expect([set.has(a), set.has(b), set.size]).toEqual([false, true, 1]);
  });
});

describe("in-flight collections of HTTP/2 sessions and grpc-js transports", () => {
  it("replace Node's stream collections in a real session, keeping what is in them", async () => {
    const server = http2.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      await new Promise((resolve) => session.once("connect", resolve));
      const state = () =>
        Object.getOwnPropertySymbols(session)
          .map((k) => (session as unknown as Record<symbol, { streams?: unknown }>)[k])
          .find((s) => s?.streams);
      expect(useArrayCollections(session)).toBe(true);
      expect(state()?.streams).toBeInstanceOf(ArrayMap);
      // The session still works on them: a request, answered, and its stream gone from the map.
      server.once("stream", (stream) => stream.respond({ ":status": 204 }, { endStream: true }));
      const request = session.request({ ":path": "/" });
      const status = await new Promise((resolve) => request.once("response", (headers) => resolve(headers[":status"])));
      await new Promise((resolve) => request.once("close", resolve));
      expect(status).toBe(204);
      expect((state()?.streams as ArrayMap<number, unknown> | undefined)?.size).toBe(0);
      expect(useArrayActiveCalls({})).toBe(false);
    } finally {
      session.close();
      server.close();
    }
  });

  // Node 24 keeps about 3.4 KB of every HTTP/2 request (9.3 KB of a grpc-js call) past scavenges
  // from the start, whatever the collections and with the bind replaced (measured with 24.21.0;
  // even a bare Writable keeps 350 B alive there; not yet found), so this comparison says nothing there.
  // docs/operations.md, "Node version". Both fixes still install and behave on Node 24.
  it.skipIf(Number(process.versions.node.split(".")[0]) >= 24)(
    "keep a gRPC call's objects from surviving young-generation collections after a full collection",
    async () => {
      // Without them every call's objects survive from the first full collection on (8 KB and more
      // per call here); with them what survives is noise. Both measured, so the comparison is made
      // on this machine, in this run.
      const [without, withArrays] = [await bytesPerCallAfterFullCollection(false), await bytesPerCallAfterFullCollection(true)];
      expect(without).toBeGreaterThan(3000);
      expect(withArrays).toBeLessThan(1500);
    },
  );
});
