import { describe, expect, it, vi } from "vitest";
import { createLogger } from "@waybill/platform/logger.js";
import { createDeliveryScheduler, type Settlement } from "./delivery-scheduler.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import type { DeliveryMessage } from "./delivery-message.js";

const logger = createLogger("delivery-scheduler-test", "silent");

function delivery(deliveryId: string): DeliveryMessage {
  return { deliveryId, tenantId: "ten_1", hookId: "hook_1", trigger: "event", eventId: deliveryId, eventKind: "order.created", eventJson: "{}" };
}

function settlement(): Settlement & { ack: ReturnType<typeof vi.fn>; working: ReturnType<typeof vi.fn> } {
  return { ack: vi.fn(), handBack: vi.fn(), working: vi.fn(), keepsDelay: false, deliveryCount: 1 };
}

const attempted = { kind: "attempted", execution: {}, retryInMs: null, receiverFault: false } as unknown as AttemptOutcome;

/**
 * A deliverer whose attempts each wait until the test lets them go (`release(id)`): with the
 * receiver's answer (`sent`) before that wait (the wait is the record) or after it (the wait is the request).
 */
function gatedDeliverer(answered: "before the wait" | "after the wait") {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const deliverer: Deliverer = {
    async attempt(d, _signal, sent) {
      started.push(d.deliveryId);
      if (answered === "before the wait") sent?.();
      await new Promise<void>((resolve) => gates.set(d.deliveryId, resolve));
      if (answered === "after the wait") sent?.();
      return attempted;
    },
  };
  return { deliverer, started, release: (deliveryId: string) => gates.get(deliveryId)!() };
}

describe("delivery scheduler", () => {
  it("frees a hook's place once the receiver answered, and settles the delivery after its record", async () => {
    // The receiver answers at once; recording the attempt takes until the test lets it finish.
    const { deliverer, started, release: recorded } = gatedDeliverer("before the wait");
    const scheduler = createDeliveryScheduler({ deliverer, logger, perHook: 1, ackWaitMs: 60_000 });
    const first = settlement();
    const second = settlement();
    scheduler.submit({ delivery: delivery("dlv_1"), settle: first });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: second });
    await vi.waitFor(() => expect(started).toEqual(["dlv_1", "dlv_2"]));
    // With one place per hook, the second request went out while the first was still being recorded.
    expect(first.ack).not.toHaveBeenCalled();
    recorded("dlv_1");
    await vi.waitFor(() => expect(first.ack).toHaveBeenCalledOnce());
    expect(second.ack).not.toHaveBeenCalled();

    // Shutdown waits for what is still being recorded.
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    recorded("dlv_2");
    await stopping;
    expect(second.ack).toHaveBeenCalledOnce();
  });

  it("holds a hook's place until the receiver answered", async () => {
    const { deliverer, started, release: answer } = gatedDeliverer("after the wait");
    const scheduler = createDeliveryScheduler({ deliverer, logger, perHook: 1, ackWaitMs: 60_000 });
    scheduler.submit({ delivery: delivery("dlv_1"), settle: settlement() });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: settlement() });
    await vi.waitFor(() => expect(started).toEqual(["dlv_1"]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(["dlv_1"]);
    answer("dlv_1");
    await vi.waitFor(() => expect(started).toEqual(["dlv_1", "dlv_2"]));
    answer("dlv_2");
    await scheduler.stop();
  });
});
