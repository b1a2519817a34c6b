// Auto-disable: a hook whose every delivery has failed for WEBHOOK_DISABLE_AFTER is paused by the
// system with a reason and a webhook.disabled event; resuming clears it and deliveries flow again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { metric } from "./support/metrics.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, setHookStatus, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

describe("auto-disable of a failing hook", () => {
  let stack: Stack;
  let call: Call;
  let receiver: TestReceiver;
  let healthy: TestReceiver;
  let failing = true;

  beforeAll(async () => {
    stack = await startStack({
      extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_DISABLE_AFTER: "1s", WEBHOOK_RETRY_SCHEDULE: "300ms,300ms,300ms,300ms,300ms,300ms" },
    });
    call = client(stack);
    receiver = await startReceiver(() => (failing ? { status: 500, body: "broken" } : { status: 200 }));
    healthy = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await healthy?.close();
    await stack?.stop();
  });

  it("pauses the hook with a reason and an event once it failed for the period; a healthy hook is untouched; resume clears it", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "customer.created" });
    const other = await createHook(call, { url: healthy.url, on: "customer.created" });
    await createCustomer(call);
    const paused = await eventually(async () => {
      const answer = await call(`/hooks/${hook.id}`);
      return answer.body.status === "paused" ? answer.body : undefined;
    }, 30_000);
    expect(paused.disabledReason).toMatch(/^Every delivery has failed since \d{4}-\d\d-\d\dT/);
    const disabled = await eventually(async () => {
      const events = (await call("/events?kind=webhook.disabled")).body.data;
      return events.find((e: { hookId: string }) => e.hookId === hook.id);
    });
    expect(disabled).toMatchObject({ kind: "webhook.disabled", name: hook.name, url: receiver.url, disabledReason: paused.disabledReason });
    expect((await call(`/hooks/${other.id}`)).body).toMatchObject({ status: "active", disabledReason: null });
    // Counted for the WaybillHookAutoDisabled alert (deploy/monitoring).
    expect(await metric(stack.dispatcher.opsPort, /^waybill_webhooks_auto_disabled_total\b/)).toBe(1);

    failing = false;
    const resumed = await setHookStatus(call, hook.id, "active");
    expect(resumed).toMatchObject({ status: "active", disabledReason: null });
    const customerId = await createCustomer(call);
    await eventually(
      async () => (receiver.received.some((r) => r.json?.customerId === customerId && r.json?.kind === "customer.created") ? true : undefined),
      15_000,
    );
    const afterResume = (await call(`/hooks/${hook.id}`)).body;
    expect(afterResume.status).toBe("active"); // the success ended the failing streak
  });
});
