import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { MuxSubscription, RequestOne } from "@nats-io/nats-core/internal";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_NATS_URL } from "./config.js";
import { installNatsRequestFixes } from "./nats-requests.js";
import { runModuleScript } from "./testing/module-script.js";
import { StringKeyMap } from "./string-key-map.js";

const NATS_URL = process.env.NATS_URL ?? DEFAULT_NATS_URL;
const MODULE_URL = pathToFileURL(`${import.meta.dirname}/nats-requests.ts`).href;

// nats.js's errors module, the one its requests build their errors from (not in its exports map).
const natsErrors = createRequire(import.meta.url)(path.join(path.dirname(createRequire(import.meta.url).resolve("@nats-io/nats-core")), "errors.js")) as {
  RequestError: new (message?: string) => Error;
};

/** Runs `work` counting the RequestErrors nats.js builds meanwhile. */
async function countRequestErrors(work: () => Promise<unknown>): Promise<number> {
  const Original = natsErrors.RequestError;
  let built = 0;
  natsErrors.RequestError = class extends Original {
    constructor(message?: string) {
      super(message);
      built++;
    }
  };
  try {
    await work();
  } finally {
    natsErrors.RequestError = Original;
  }
  return built;
}

/**
 * JetStream publishes, 256 in flight, from a fresh Node: the bytes per publish that survive a
 * scavenge after a full collection (median of nine rounds), with or without the string-keyed table.
 */
async function bytesPerPublishSurvivingScavenge(table: boolean): Promise<number> {
  const stream = `NATSREQ_${randomBytes(4).toString("hex").toUpperCase()}`;
  const script = `
    import v8 from "node:v8";
    import { connect } from "@nats-io/transport-node";
    import { jetstream, jetstreamManager } from "@nats-io/jetstream";
    import { installRepliesWithoutError, installStringKeyRequestTables } from ${JSON.stringify(MODULE_URL)};
    installRepliesWithoutError();
    if (${table}) installStringKeyRequestTables();
    const nc = await connect({ servers: ${JSON.stringify(NATS_URL)}, noAsyncTraces: true });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "${stream}", subjects: ["${stream.toLowerCase()}.>"], max_msgs: 50000 });
    try {
      const js = jetstream(nc);
      const body = "x".repeat(300);
      let n = 0;
      const publishes = (count) => Promise.all(Array.from({ length: 256 }, async () => {
        for (let i = 0; i < count / 256; i++) await js.publish("${stream.toLowerCase()}.a", body, { msgID: "m" + n++ });
      }));
      const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_used_size;
      await publishes(10240);
      gc();
      const rounds = [];
      for (let round = 0; round < 9; round++) {
        gc({ type: "minor" });
        await publishes(2048);
        gc({ type: "minor" });
        rounds.push(young() / 2048);
      }
      console.log(rounds.sort((a, b) => a - b)[4]);
    } finally {
      await jsm.streams.delete("${stream}");
      await nc.close();
    }`;
  return Number((await runModuleScript(script, ["--expose-gc"])).split("\n").at(-1));
}

describe("string-keyed map", () => {
  it("answers as a Map does for what nats.js asks of its request table", () => {
    const map = new StringKeyMap<number>([["a", 1]]);
    map.set("b", 2).set("c", 3).set("b", 20);
    expect(map.delete("a")).toBe(true);
    expect(map.delete("a")).toBe(false);
    expect([map.size, map.get("b"), map.get("a"), map.has("c"), map.has("a")]).toEqual([2, 20, undefined, true, false]);
    expect([...map.values()].sort((a, b) => a - b)).toEqual([3, 20]);
    const seen: string[] = [];
    map.forEach((value, key) => {
      seen.push(`${key}=${value}`);
    });
    expect(seen.sort()).toEqual(["b=20", "c=3"]);
    // Keys that look like numbers or Object.prototype members are plain keys here.
    map.set("123", 4).set("constructor", 5);
    expect([map.get("123"), map.get("constructor"), map.get("toString"), map.size]).toEqual([4, 5, undefined, 4]);
  });
});

describe("NATS requests with Waybill's replacements", () => {
  let nc: NatsConnection;
  const stream = `NATSREQ_${randomBytes(4).toString("hex").toUpperCase()}`;
  const subject = `${stream.toLowerCase()}.a`;

  beforeAll(async () => {
    installNatsRequestFixes();
    nc = await connect({ servers: NATS_URL, noAsyncTraces: true });
    await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`] });
  });
  afterAll(async () => {
    await (await jetstreamManager(nc)).streams.delete(stream);
    await nc.close();
  });

  it("build no error for a reply that came, while nats.js's own cancel still builds one", async () => {
    const js = jetstream(nc);
    const acks: number[] = [];
    const built = await countRequestErrors(async () => {
      for (let i = 0; i < 50; i++) acks.push((await js.publish(subject, `m${i}`, { msgID: `reply-${i}` })).seq);
    });
    expect(acks).toHaveLength(50);
    expect(new Set(acks).size).toBe(50); // every publish stored and acknowledged
    expect(built).toBe(0);
    // The counter sees what nats.js builds: its cancel (left as it is) builds one.
    const mux = new MuxSubscription();
    const request = new RequestOne(mux, subject, { timeout: 1000 }, false);
    request.deferred.catch(() => {});
    expect(await countRequestErrors(async () => request.cancel())).toBe(1);
  });

  it("leave no request behind in the connection's table, which is a StringKeyMap", async () => {
    const js = jetstream(nc);
    await Promise.all(Array.from({ length: 20 }, (_, i) => js.publish(subject, `t${i}`, { msgID: `table-${i}` })));
    const mux = (nc as unknown as { protocol: { muxSubscriptions: MuxSubscription } }).protocol.muxSubscriptions;
    expect(mux.reqs).toBeInstanceOf(StringKeyMap);
    expect(mux.size()).toBe(0);
  });

  it("still fail a request that gets no reply, or a refusal, as nats.js does", async () => {
    await expect(nc.request(`${stream.toLowerCase()}-nobody.here`, "x", { timeout: 500 })).rejects.toThrow(/no responders/i);
    // A stream that is not there: JetStream answers with an error, which rejects the publish.
    await expect(jetstream(nc).publish("no-stream-has.this-subject", "x", { timeout: 500 })).rejects.toThrow();
  });

  it("keep JetStream publishes from surviving young-generation collections", async () => {
    const without = await bytesPerPublishSurvivingScavenge(false);
    const withTable = await bytesPerPublishSurvivingScavenge(true);
    // Measured (8 runs): 51–139 bytes per publish with nats.js's Map, 2–16 with the string-keyed table.
    expect(without).toBeGreaterThan(40);
    expect(withTable).toBeLessThan(25);
  }, 120_000);
});
