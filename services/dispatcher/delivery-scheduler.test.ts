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

describe("delivery scheduler", () => {
  it("frees a hook's place once the receiver answered, and settles the delivery after its record", async () => {
    const started: string[] = [];
    const recorded = new Map<string, () => void>();
    const deliverer: Deliverer = {
      async attempt(d, _signal, sent) {
        started.push(d.deliveryId);
        sent?.(); // the receiver has answered; recording it takes a while
        await new Promise<void>((resolve) => recorded.set(d.deliveryId, resolve));
        return attempted;
      },
    };
    const scheduler = createDeliveryScheduler({ deliverer, logger, perHook: 1, ackWaitMs: 60_000 });
    const first = settlement();
    const second = settlement();
    scheduler.submit({ delivery: delivery("dlv_1"), settle: first });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: second });
    await vi.waitFor(() => expect(started).toEqual(["dlv_1", "dlv_2"]));
    // With one place per hook, the second request went out while the first was still being recorded.
    expect(first.ack).not.toHaveBeenCalled();
    recorded.get("dlv_1")!();
    await vi.waitFor(() => expect(first.ack).toHaveBeenCalledOnce());
    expect(second.ack).not.toHaveBeenCalled();

    // Shutdown waits for what is still being recorded.
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    recorded.get("dlv_2")!();
    await stopping;
    expect(second.ack).toHaveBeenCalledOnce();
  });

  it("holds a hook's place until the receiver answered", async () => {
    const started: string[] = [];
    const answer = new Map<string, () => void>();
    const deliverer: Deliverer = {
      async attempt(d, _signal, sent) {
        started.push(d.deliveryId);
        await new Promise<void>((resolve) => answer.set(d.deliveryId, resolve));
        sent?.();
        return attempted;
      },
    };
    const scheduler = createDeliveryScheduler({ deliverer, logger, perHook: 1, ackWaitMs: 60_000 });
    scheduler.submit({ delivery: delivery("dlv_1"), settle: settlement() });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: settlement() });
    await vi.waitFor(() => expect(started).toEqual(["dlv_1"]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(["dlv_1"]);
    answer.get("dlv_1")!();
    await vi.waitFor(() => expect(started).toEqual(["dlv_1", "dlv_2"]));
    answer.get("dlv_2")!();
    await scheduler.stop();
  });
});
