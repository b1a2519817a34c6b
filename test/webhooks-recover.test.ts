// Recover: after a receiver's outage, POST /hooks/{id}/recover redelivers exactly the events of
// the window that never reached it with success (trigger "recover"), once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, executionsOf, LOOPBACK_RECEIVERS, setHookStatus, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

describe("POST /v1/hooks/{id}/recover", () => {
  let stack: Stack;
  let call: Call;
  let receiver: TestReceiver;
  let failing = true;

  beforeAll(async () => {
    // Two quick attempts per event, so an outage's failures are final within the test.
    stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "50ms" } });
    call = client(stack);
    receiver = await startReceiver(() => (failing ? { status: 503, body: "down" } : { status: 200, body: "ok" }));
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  const customerIdsDelivered = () => receiver.received.filter((r) => r.json?.kind === "customer.created").map((r) => r.json.customerId as string);

  it("redelivers exactly the events that failed, as executions with trigger recover, and not twice", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "customer.created" });
    const since = new Date(Date.now() - 1_000).toISOString();
    const lost = [await createCustomer(call), await createCustomer(call), await createCustomer(call)];
    // Every attempt at the three fails: two each, then they are given up.
    await eventually(async () => {
      const executions = await executionsOf(call, hook.id);
      return executions.filter((e) => e.outcome === "failed" && e.nextAttemptAt === null).length >= 3 ? true : undefined;
    }, 30_000);
    failing = false;
    const delivered = await createCustomer(call);
    // (after the outage the hook's circuit breaker may hold it back a little)
    await eventually(async () => (customerIdsDelivered().includes(delivered) ? true : undefined), 30_000);
    const before = receiver.received.length;

    const recovered = await call(`/hooks/${hook.id}/recover`, { json: { since } });
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(202);
    expect(recovered.body).toEqual({ queued: 3, truncated: false });

    const recoverExecutions = await eventually(async () => {
      const list = (await executionsOf(call, hook.id)).filter((e) => e.trigger === "recover");
      return list.length >= 3 ? list : undefined;
    }, 30_000);
    expect(recoverExecutions.every((e) => e.outcome === "succeeded" && e.statusCode === 200)).toBe(true);
    const redelivered = receiver.received.slice(before).map((r) => r.json.customerId as string);
    expect(redelivered.sort()).toEqual([...lost].sort()); // the failed three, not the one that arrived

    // A second recovery of the same window finds nothing left to send.
    const again = await call(`/hooks/${hook.id}/recover`, { json: { since } });
    expect(again.body).toEqual({ queued: 0, truncated: false });
    const marker = await createCustomer(call); // a later delivery proves nothing else went out before it
    await eventually(async () => (customerIdsDelivered().includes(marker) ? true : undefined), 30_000);
    expect(
      receiver.received
        .slice(before)
        .map((r) => r.json.customerId)
        .filter((id: string) => id !== marker)
        .sort(),
    ).toEqual([...lost].sort());
  });

  it("refuses a paused hook, a malformed or inverted window, and another tenant's hook", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "customer.updated" });
    const bad = await call(`/hooks/${hook.id}/recover`, { json: { since: "yesterday" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe("since");
    const inverted = await call(`/hooks/${hook.id}/recover`, { json: { since: "2026-11-24T10:00:00Z", until: "2026-11-24T09:00:00Z" } });
    expect(inverted.status).toBe(422);
    await setHookStatus(call, hook.id, "paused");
    const paused = await call(`/hooks/${hook.id}/recover`, { json: { since: "2026-11-01T00:00:00Z" } });
    expect(paused.status).toBe(409);
    expect(paused.body.code).toBe("hook_paused");
    const missing = await call(`/hooks/hook_01jz0000000000000000000000/recover`, { json: { since: "2026-11-01T00:00:00Z" } });
    expect(missing.status).toBe(404);
  });
});
