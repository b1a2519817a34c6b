// The SSRF guard (default: WEBHOOK_ALLOW_PRIVATE_NETWORKS unset). A hook URL naming or resolving to
// a loopback, private, link-local or metadata address is refused when the hook is created or
// changed (422 blocked_address); a hook whose name points inward only later (the database row
// changed here stands for a DNS answer that changed) is still refused at delivery time and
// recorded as "blocked address".
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { eventually, expectProblem } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, executionsOf, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
let target: TestReceiver;
let db: pg.Client;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { WEBHOOK_RETRY_SCHEDULE: "50ms" } });
  call = client(stack);
  target = await startReceiver();
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await target?.close();
  await stack?.stop();
});

/** A hook created for a public address whose URL then points at `url` (as a changed DNS answer would). */
async function hookNowPointingAt(url: string, on: string) {
  const hook = await createHook(call, { url: "http://203.0.114.1/hook", on });
  await db.query("UPDATE dispatcher.hooks SET url = $1 WHERE id = $2", [url, hook.id]);
  return hook;
}

describe("a hook on a private address", () => {
  const port = () => new URL(target.url).port;
  const privateUrls = () => [
    target.url, // 127.0.0.1
    `http://localhost:${port()}/hook`, // resolved by DNS at creation
    `http://[::1]:${port()}/hook`,
    `http://[::ffff:127.0.0.1]:${port()}/hook`,
    "http://169.254.169.254/latest/meta-data/",
    "http://10.1.2.3/hook",
    "http://192.168.0.10/hook",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://[fd00:ec2::254]/hook",
  ];

  it("is refused when created: 422 blocked_address on the url field, and no hook exists", async () => {
    for (const url of privateUrls()) {
      const answer = await call("/hooks", { json: { name: "inward", url, on: "order.created" } });
      expectProblem(answer, 422, "blocked_address");
      expect(answer.body.errors, url).toEqual([{ path: "url", message: expect.stringMatching(/loopback, private or reserved/) }]);
      expect(answer.body.detail).toContain("WEBHOOK_ALLOW_PRIVATE_NETWORKS");
    }
    expect((await call("/hooks")).body.data).toEqual([]);
  });

  it("is refused when an existing hook's URL is changed to one", async () => {
    const hook = await createHook(call, { url: "http://203.0.114.1/hook", on: "order.created" });
    const answer = await call(`/hooks/${hook.id}`, { method: "PUT", json: { url: `http://localhost:${port()}/hook` } });
    expectProblem(answer, 422, "blocked_address");
    expect((await call(`/hooks/${hook.id}`)).body.url).toBe("http://203.0.114.1/hook");
    await call(`/hooks/${hook.id}`, { method: "DELETE" });
  });

  it('is still refused at delivery time with error "blocked address", whether named or literal', async () => {
    for (const url of privateUrls()) {
      const hook = await hookNowPointingAt(url, "order.created");
      const answer = await call(`/hooks/${hook.id}/test`, { method: "POST" });
      expect(answer.status, url).toBe(200);
      expect(answer.body, url).toMatchObject({ outcome: "failed", error: "blocked address", statusCode: null, responseBody: null, url });
      await call(`/hooks/${hook.id}`, { method: "DELETE" });
    }
    expect(target.received).toEqual([]);
  });

  it("records event deliveries to it as failed attempts, and the receiver never sees them", async () => {
    const hook = await hookNowPointingAt(target.url, "order.created");
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 0);
    await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    const executions = await eventually(async () => {
      const list = await executionsOf(call, hook.id);
      return list.length === 2 ? list : undefined;
    });
    expect(executions.map((e) => [e.attempt, e.outcome, e.error])).toEqual([
      [2, "failed", "blocked address"],
      [1, "failed", "blocked address"],
    ]);
    // Each attempt is recorded after its send was decided: refused attempts never reached the receiver.
    expect(target.received).toEqual([]);
    await call(`/hooks/${hook.id}`, { method: "DELETE" });
  });

  it("refuses a host name that resolves to loopback when the event is delivered (localhost)", async () => {
    const hook = await hookNowPointingAt(`http://localhost:${port()}/hook`, "customer.created");
    await createCustomer(call);
    const executions = await eventually(async () => {
      const list = await executionsOf(call, hook.id);
      return list.length === 2 ? list : undefined;
    });
    expect(executions.map((e) => [e.trigger, e.outcome, e.error, e.statusCode])).toEqual([
      ["retry", "failed", "blocked address", null],
      ["event", "failed", "blocked address", null],
    ]);
    expect(executions[1].url).toBe(`http://localhost:${port()}/hook`);
    // The last attempt is recorded (nextAttemptAt null: nothing follows), so nothing more can arrive.
    expect(executions[0].nextAttemptAt).toBeNull();
    expect(target.received).toEqual([]);
  });
});
