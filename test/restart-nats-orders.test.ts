// The operator's scenario of a NATS restart: orders are created under load while the nats-server
// (the test's own, file storage) is killed with -9 and started again on the same storage. Every
// order answered 201 must reach the hook subscribed to order.created within 30 s of the server
// being back, without restarting the system.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderLoad, startSystem, undelivered, whereAreThey, type System } from "./restart-scenarios-fixtures.js";
import { eventually } from "./support/http.js";
import { startTestNats, type RestartableServer } from "./support/private-servers.js";
import { startReceiver, sleep, type TestReceiver } from "./webhooks-fixtures.js";

const CLIENTS = Number(process.env.SCENARIO_CLIENTS ?? 4);
const BEFORE_MS = 3_000;
const DOWN_MS = Number(process.env.SCENARIO_DOWN_MS ?? 3_000);
const AFTER_MS = 4_000;
const DELIVERED_WITHIN_MS = Number(process.env.SCENARIO_WITHIN_MS ?? 30_000);
const RECEIVER_DELAY_MS = Number(process.env.SCENARIO_RECEIVER_DELAY_MS ?? 20);

let nats: RestartableServer;
let system: System;
let receiver: TestReceiver;

beforeAll(async () => {
  nats = await startTestNats();
  system = await startSystem({ natsUrl: nats.url });
  // A receiver that takes a while keeps the dispatcher's lanes queued when the server goes.
  receiver = await startReceiver(async () => {
    await sleep(RECEIVER_DELAY_MS);
    return { status: 200 };
  });
}, 120_000);

afterAll(async () => {
  await nats?.start();
  await system?.stop();
  await receiver?.close();
  await nats?.stop();
}, 60_000);

describe("a nats-server killed with -9 under load and started again", () => {
  it(
    "delivers every order answered 201 within 30 s of the server being back",
    async () => {
      const customer = await system.call("/customers", { json: { name: "Restart Customer" } });
      expect(customer.status).toBe(201);
      expect((await system.call("/hooks", { json: { name: "orders", url: receiver.url, on: "order.created" } })).status).toBe(201);
      let stop = false;
      const load = orderLoad(system.call, customer.body.id, CLIENTS, () => stop);
      await sleep(BEFORE_MS);
      await nats.bounce("SIGKILL", DOWN_MS);
      const backAt = Date.now();
      await sleep(AFTER_MS);
      stop = true;
      const tally = await load;

      let missing: string[] = [];
      const recovered = await eventually(
        async () => {
          missing = undelivered(tally.created, receiver);
          return missing.length === 0 ? Date.now() : undefined;
        },
        DELIVERED_WITHIN_MS - AFTER_MS,
        200,
      ).catch(() => undefined);
      console.log(
        `nats -9: orders answered 201: ${tally.created.length}, refused: ${JSON.stringify(Object.fromEntries(tally.refused))}, unanswered: ${tally.unanswered}, ` +
          `delivered: ${tally.created.length - missing.length}, undelivered: ${missing.length}, all delivered ${recovered ? `${recovered - backAt} ms` : "never"} after the server was back`,
      );
      if (missing.length > 0) console.log(JSON.stringify(await whereAreThey(system.env.databaseUrl, missing), null, 1));
      expect(system.launcher.process.exitCode).toBeNull();
      expect(tally.created.length).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    },
    60_000 + DELIVERED_WITHIN_MS,
  );
});
