// `waybill trigger <kind>` against the real system: for every kind a client can cause it creates
// real resources, prints them and the event ids, and each event is in GET /v1/events with its
// kind; the kinds no API call causes are explained; a credential that may not is told what would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCli, type Cli } from "./support/cli.js";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let cli: Cli;

interface Listed {
  kind: string;
  triggerable: boolean;
  how: string;
}

beforeAll(async () => {
  stack = await startStack();
  cli = await createCli({ WAYBILL_URL: stack.edge.url, WAYBILL_TOKEN: stack.token });
});

afterAll(async () => {
  await cli?.cleanup();
  await stack?.stop();
});

/** The event log as the API gives it (every page since the start of the test). */
async function eventLog(): Promise<{ id: string; kind: string; transactionId: string }[]> {
  const events = [];
  let cursor = "";
  for (;;) {
    const page = await request(`${stack.baseUrl}/events?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { token: stack.token });
    expect(page.status).toBe(200);
    events.push(...page.body.data);
    if (!page.body.nextCursor) return events;
    cursor = page.body.nextCursor;
  }
}

describe("waybill trigger", () => {
  let listed: Listed[];

  it("lists every kind of the catalog: the ones it causes and why not the others", async () => {
    listed = await cli.json(["trigger", "--list"]);
    const catalog = (await cli.json(["event-kinds"])).map((k: { kind: string }) => k.kind);
    expect(listed.map((k) => k.kind).sort()).toEqual([...catalog].sort());
    expect(
      listed
        .filter((k) => !k.triggerable)
        .map((k) => k.kind)
        .sort(),
    ).toEqual(["device.connected", "device.disconnected", "webhook.disabled", "webhook.test"]);
    const table = await cli.run(["trigger", "--list"]);
    expect(table.stdout).toMatch(/^KIND\s+WHAT TRIGGER DOES$/m);
    expect(table.stdout).toMatch(/^inventory\.low\s+creates a product with a low-stock threshold of 5/m);

    const explained = await cli.run(["trigger", "webhook.test"]);
    expect(explained.code).toBe(2);
    expect(explained.stderr).toBe(
      "error: webhook.test cannot be triggered through the API: it comes from sent to one hook by `waybill hooks test <hook id>`; it is delivered, not written to the event log\n",
    );
    const unknown = await cli.run(["trigger", "order.bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown event kind "order.bogus"');
  });

  it("causes each kind it lists, prints what it created and the event, and the event is in GET /v1/events", async () => {
    const kinds = listed.filter((k) => k.triggerable).map((k) => k.kind);
    expect(kinds).toHaveLength(21);
    const results: Record<string, { transactionId: string; eventId: string; created: { what: string; id: string }[]; events: { id: string; kind: string }[] }> =
      {};
    // Four at a time: each waits for its events.
    for (let i = 0; i < kinds.length; i += 4) {
      await Promise.all(
        kinds.slice(i, i + 4).map(async (kind) => {
          const run = await cli.run(["trigger", kind, "--json"]);
          expect(run.code, `${kind}: ${run.stderr}`).toBe(0);
          results[kind] = JSON.parse(run.stdout);
        }),
      );
    }
    const log = await eventLog();
    for (const kind of kinds) {
      const result = results[kind];
      expect(result.eventId, kind).toMatch(/^evt_/);
      expect(result.created.length, kind).toBeGreaterThan(0);
      const logged = log.find((e) => e.id === result.eventId);
      expect(logged, kind).toMatchObject({ kind });
      // Every event it printed is in the log, with the kind printed.
      for (const printed of result.events) expect(log.find((e) => e.id === printed.id)?.kind, `${kind}: ${printed.id}`).toBe(printed.kind);
    }
    // The chains a person expects to see together.
    expect(results["inventory.low"].events.map((e) => e.kind)).toContain("inventory.adjusted");
    expect(results["order.completed"].events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["inventory.reserved", "inventory.consumed", "order.completed"]),
    );
    expect(results["shipment.delivered"].events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["shipment.created", "shipment.status.changed", "shipment.delivered"]),
    );
  });

  it("prints for people what it created and the events", async () => {
    const run = await cli.run(["trigger", "order.created"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^Triggering order\.created: creates a product and an order .* \(transaction txn_[0-9a-z]{26}\)$/m);
    expect(run.stdout).toMatch(/^Created:\n {2}customer(?: \(existing\))?\s+cus_[0-9a-z]{26}$/m);
    expect(run.stdout).toMatch(/^ {2}product\s+prd_[0-9a-z]{26}$/m);
    expect(run.stdout).toMatch(/^ {2}order\s+ord_[0-9a-z]{26}$/m);
    expect(run.stdout).toMatch(/^Events:\n(?: {2}evt_[0-9a-z]{26} {2}[a-z.]+\n)+✓ order\.created: evt_[0-9a-z]{26}\n$/m);
  });

  it("tells a cli token which credential device.reading needs, and sends it with --device-token", async () => {
    const cliToken = (await cli.json(["tokens", "create", "--name", "trigger cli", "--type", "cli"])).token;
    const refused = await cli.run(["trigger", "device.reading"], { env: { WAYBILL_TOKEN: cliToken } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^error: token_type_forbidden \(HTTP 403\)/m);
    expect(refused.stderr).toContain(
      "hint: trigger device.reading needs a token that may publish device readings (a sensor, machine or api token; give a sensor token with --device-token); the credential in use may not",
    );
    const sensor = (await cli.json(["tokens", "create", "--name", "trigger sensor", "--type", "sensor"])).token;
    const sent = await cli.run(["trigger", "device.reading", "--device-token", sensor, "--json"], { env: { WAYBILL_TOKEN: cliToken } });
    expect(sent.code, sent.stderr).toBe(0);
    const { eventId } = JSON.parse(sent.stdout);
    expect((await eventLog()).find((e) => e.id === eventId)).toMatchObject({ kind: "device.reading", deviceId: "waybill-trigger" });

    const stock = await cli.run(["trigger", "inventory.low"], { env: { WAYBILL_TOKEN: cliToken } });
    expect(stock.code).toBe(1);
    expect(stock.stderr).toContain("hint: trigger inventory.low needs a token that may adjust stock (a machine or api token, or a session; not a cli token)");
    // What a cli token may do, it does.
    const order = await cli.run(["trigger", "order.created", "--json"], { env: { WAYBILL_TOKEN: cliToken } });
    expect(order.code, order.stderr).toBe(0);
  });
});
