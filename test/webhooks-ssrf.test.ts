// The SSRF guard (default: WEBHOOK_ALLOW_PRIVATE_NETWORKS unset): deliveries to loopback, private,
// link-local and metadata addresses are refused after resolution and recorded as "blocked address".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, executionsOf, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
let target: TestReceiver;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { WEBHOOK_RETRY_SCHEDULE: "50ms" } });
  call = client(stack);
  target = await startReceiver();
});
afterAll(async () => {
  await target?.close();
  await stack?.stop();
});

describe("a hook on a private address", () => {
  it("is refused at delivery time with error \"blocked address\", whether named or literal", async () => {
    const port = new URL(target.url).port;
    for (const url of [
      target.url, // 127.0.0.1
      `http://localhost:${port}/hook`, // resolved by DNS first
      `http://[::1]:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.1.2.3/hook",
      "http://192.168.0.10/hook",
      "http://100.64.0.1/hook",
      "http://0.0.0.0/hook",
      "http://[fd00:ec2::254]/hook",
    ]) {
      const hook = await createHook(call, { url, on: "order.created" });
      const answer = await call(`/hooks/${hook.id}/test`, { method: "POST" });
      expect(answer.status, url).toBe(200);
      expect(answer.body, url).toMatchObject({ outcome: "failed", error: "blocked address", statusCode: null, responseBody: null, url });
    }
    expect(target.received).toEqual([]);
  });

  it("records event deliveries to it as failed attempts, and the receiver never sees them", async () => {
    const hook = await createHook(call, { url: target.url, on: "order.created" });
    const customerId = await createCustomer(call);
    await createOrder(call, customerId, [{ productId: "prd_01jc0000000000000000000001", quantity: 1 }]);
    const executions = await eventually(async () => {
      const list = await executionsOf(call, hook.id);
      return list.length === 2 ? list : undefined;
    });
    expect(executions.map((e) => [e.attempt, e.outcome, e.error])).toEqual([
      [2, "failed", "blocked address"],
      [1, "failed", "blocked address"],
    ]);
    await sleep(200);
    expect(target.received).toEqual([]);
  });

  it("refuses a host name that resolves to loopback when the event is delivered (localhost)", async () => {
    const port = new URL(target.url).port;
    const hook = await createHook(call, { url: `http://localhost:${port}/hook`, on: "customer.created" });
    await createCustomer(call);
    const executions = await eventually(async () => {
      const list = await executionsOf(call, hook.id);
      return list.length === 2 ? list : undefined;
    });
    expect(executions.map((e) => [e.trigger, e.outcome, e.error, e.statusCode])).toEqual([
      ["retry", "failed", "blocked address", null],
      ["event", "failed", "blocked address", null],
    ]);
    expect(executions[1].url).toBe(`http://localhost:${port}/hook`);
    await sleep(200);
    expect(target.received).toEqual([]);
  });
});
