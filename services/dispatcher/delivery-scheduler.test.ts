import { describe, expect, it, vi } from "vitest";
import { createLogger } from "@waybill/platform/logger.js";
import { createBreakerRegistry } from "./circuit-breaker.js";
import { createDeliveryScheduler, type DeferReason, HookLaneScheduler, type Settlement } from "./delivery-scheduler.js";
import { HELD_BACK_MAX_DELAY_MS } from "./lane-policy.js";
import { PACER_MIN_DELAY_MS } from "./overflow-pacer.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import type { DeliveryMessage } from "./delivery-message.js";

const logger = createLogger("delivery-scheduler-test", "silent");

function delivery(deliveryId: string, hookId = "hook_1"): DeliveryMessage {
  return { deliveryId, tenantId: "ten_1", hookId, trigger: "event", eventId: deliveryId, eventKind: "order.created", eventJson: "{}" };
}

function settlement(keepsDelay = false): Settlement & { ack: ReturnType<typeof vi.fn>; handBack: ReturnType<typeof vi.fn>; working: ReturnType<typeof vi.fn> } {
  return { ack: vi.fn(), handBack: vi.fn(), working: vi.fn(), keepsDelay, deliveryCount: 1 };
}

const attempted = { kind: "attempted", execution: {}, retryInMs: null, receiverFault: false } as unknown as AttemptOutcome;

/**
 * A deliverer whose attempts each wait until the test lets them go (`release(id)`): with the
 * receiver's answer (`held` freed) before that wait (the wait is the record) or after it (the wait is the request).
 */
function gatedDeliverer(answered: "before the wait" | "after the wait") {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const deliverer: Pick<Deliverer, "attempt"> = {
    async attempt(d, _signal, held) {
      started.push(d.deliveryId);
      if (answered === "before the wait") held?.free();
      await new Promise<void>((resolve) => gates.set(d.deliveryId, resolve));
      if (answered === "after the wait") held?.free();
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

describe("delivery scheduler's transitions", () => {
  /** A scheduler of one place and two queue places per hook (its held budget shared with one more hook), whose attempts wait for the test. */
  function oneLane(options: { breakers?: ReturnType<typeof createBreakerRegistry> } = {}) {
    const gated = gatedDeliverer("after the wait");
    const deferred: DeferReason[] = [];
    const scheduler = new HookLaneScheduler({
      deliverer: gated.deliverer,
      logger,
      perHook: 1,
      maxHeld: 4,
      ackWaitMs: 60_000,
      breakers: options.breakers,
      random: () => 0,
      onDeferred: (reason) => deferred.push(reason),
    });
    return { scheduler, deferred, ...gated };
  }

  it("hands back what its lane cannot hold, paced only when the source keeps the delay, and not as settled", async () => {
    const { scheduler, deferred, release } = oneLane();
    scheduler.submit({ delivery: delivery("dlv_1"), settle: settlement() }); // runs
    scheduler.submit({ delivery: delivery("dlv_2"), settle: settlement() }); // queued
    scheduler.submit({ delivery: delivery("dlv_3"), settle: settlement() }); // queued
    const paced = settlement(true);
    const unpaced = settlement(false);
    scheduler.submit({ delivery: delivery("dlv_4"), settle: paced });
    scheduler.submit({ delivery: delivery("dlv_5"), settle: unpaced });
    expect(deferred).toEqual(["lane full", "lane full"]);
    expect(paced.handBack.mock.calls[0][0]).toBeGreaterThanOrEqual(PACER_MIN_DELAY_MS);
    expect(unpaced.handBack).toHaveBeenCalledWith(0);
    expect(scheduler.heldCount()).toBe(3);
    expect(scheduler.settledCount()).toBe(0);
    release("dlv_1");
    await vi.waitFor(() => expect(scheduler.settledCount()).toBe(1));
    const stopping = scheduler.stop();
    release("dlv_2");
    await stopping;
  });

  it("hands a delivery back while its hook's breaker is open, counted as settled (a decision, not a stall)", async () => {
    const breakers = createBreakerRegistry({ failureThreshold: 1, openMs: 1_000, now: () => 5_000 });
    breakers.get("hook_1").admit();
    breakers.get("hook_1").onFailure();
    const { scheduler, deferred, started } = oneLane({ breakers });
    const held = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_1"), settle: held });
    expect(started).toEqual([]);
    expect(deferred).toEqual(["breaker open"]);
    expect(held.handBack.mock.calls[0][0]).toBeGreaterThanOrEqual(1_000);
    expect(scheduler.settledCount()).toBe(1);
    // One that has come back to the open breaker many times already waits far longer.
    const often = { ...settlement(true), deliveryCount: 12 };
    scheduler.submit({ delivery: delivery("dlv_2"), settle: often });
    expect(often.handBack.mock.calls[0][0]).toBe(HELD_BACK_MAX_DELAY_MS);
    await scheduler.stop();
  });

  it("sends a retry someone asked for now, past an open breaker, and counts its outcome", async () => {
    const breakers = createBreakerRegistry({ failureThreshold: 1, openMs: 1_000, now: () => 5_000 });
    breakers.get("hook_1").admit();
    breakers.get("hook_1").onFailure();
    const { scheduler, deferred, started, release } = oneLane({ breakers });
    const scheduled = settlement(true);
    const asked = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_1"), settle: scheduled });
    scheduler.submit({ delivery: { ...delivery("dlv_2"), trigger: "manual" }, settle: asked });
    expect(deferred).toEqual(["breaker open"]);
    expect(scheduled.handBack).toHaveBeenCalledOnce();
    await vi.waitFor(() => expect(started).toEqual(["dlv_2"]));
    release("dlv_2");
    await vi.waitFor(() => expect(asked.ack).toHaveBeenCalledOnce());
    // Its success closed the breaker: the next scheduled delivery goes out too.
    expect(breakers.get("hook_1").state()).toBe("closed");
    scheduler.submit({ delivery: delivery("dlv_3"), settle: settlement(true) });
    await vi.waitFor(() => expect(started).toEqual(["dlv_2", "dlv_3"]));
    const stopping = scheduler.stop();
    release("dlv_3");
    await stopping;
  });

  it("keeps a queued manual retry in its lane when the breaker opens, and hands back the rest", async () => {
    const breakers = createBreakerRegistry({ failureThreshold: 1, openMs: 60_000 });
    const failing = { kind: "attempted", execution: {}, retryInMs: 5_000, receiverFault: true } as unknown as AttemptOutcome;
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const deferred: DeferReason[] = [];
    const scheduler = new HookLaneScheduler({
      deliverer: {
        async attempt(d) {
          started.push(d.deliveryId);
          await new Promise<void>((resolve) => gates.set(d.deliveryId, resolve));
          return d.deliveryId === "dlv_1" ? failing : attempted;
        },
      },
      logger,
      perHook: 1,
      maxHeld: 4,
      ackWaitMs: 60_000,
      breakers,
      random: () => 0,
      onDeferred: (reason) => deferred.push(reason),
    });
    const waiting = settlement(true);
    const asked = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_1"), settle: settlement(true) }); // runs, and fails
    scheduler.submit({ delivery: delivery("dlv_2"), settle: waiting }); // queued
    scheduler.submit({ delivery: { ...delivery("dlv_3"), trigger: "manual" }, settle: asked }); // queued
    await vi.waitFor(() => expect(started).toEqual(["dlv_1"]));
    gates.get("dlv_1")!();
    await vi.waitFor(() => expect(started).toEqual(["dlv_1", "dlv_3"]));
    expect(deferred).toEqual(["breaker open"]);
    expect(waiting.handBack).toHaveBeenCalledOnce();
    gates.get("dlv_3")!();
    await vi.waitFor(() => expect(asked.ack).toHaveBeenCalledOnce());
    await scheduler.stop();
  });

  /** A scheduler that parks after 60 s, with the breakers of `hookIds` open for 1 s. */
  function parkingScheduler(hookIds: string[], hasParked?: (hookId: string) => boolean) {
    const breakers = createBreakerRegistry({ failureThreshold: 1, openMs: 1_000, now: () => 5_000 });
    for (const hookId of hookIds) {
      breakers.get(hookId).admit();
      breakers.get(hookId).onFailure();
    }
    const deferred: DeferReason[] = [];
    const scheduler = new HookLaneScheduler({
      deliverer: gatedDeliverer("after the wait").deliverer,
      logger,
      perHook: 1,
      ackWaitMs: 60_000,
      breakers,
      random: () => 0,
      parkAfterMs: 60_000,
      hasParked,
      onDeferred: (reason) => deferred.push(reason),
    });
    return { scheduler, deferred };
  }

  it("parks a delivery that would wait for the breaker as long as parkAfterMs, when its source can park it", async () => {
    const { scheduler, deferred } = parkingScheduler(["hook_1"]);
    const parkable = (deliveryCount: number) => ({ ...settlement(true), deliveryCount, park: vi.fn() });
    const soon = parkable(1); // would wait 5 s: handed back
    const late = parkable(6); // would wait 160 s: parked
    const unparkable = { ...settlement(true), deliveryCount: 6 }; // its source cannot park: handed back
    scheduler.submit({ delivery: delivery("dlv_1"), settle: soon });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: late });
    scheduler.submit({ delivery: delivery("dlv_3"), settle: unparkable });
    expect(deferred).toEqual(["breaker open", "parked", "breaker open"]);
    expect(soon.park).not.toHaveBeenCalled();
    expect(soon.handBack).toHaveBeenCalledWith(5_000);
    expect(late.park).toHaveBeenCalledOnce();
    expect(late.handBack).not.toHaveBeenCalled();
    expect(unparkable.handBack).toHaveBeenCalledWith(160_000);
    await scheduler.stop();
  });

  it("parks at once a delivery that finds the breaker open when its hook has parked deliveries already", async () => {
    const { scheduler, deferred } = parkingScheduler(["hook_1", "hook_2"], (hookId) => hookId === "hook_1");
    const joins = { ...settlement(true), park: vi.fn() };
    const waits = { ...settlement(true), park: vi.fn() };
    scheduler.submit({ delivery: delivery("dlv_1", "hook_1"), settle: joins });
    scheduler.submit({ delivery: delivery("dlv_2", "hook_2"), settle: waits });
    expect(deferred).toEqual(["parked", "breaker open"]);
    expect(joins.park).toHaveBeenCalledOnce();
    expect(joins.handBack).not.toHaveBeenCalled();
    expect(waits.park).not.toHaveBeenCalled();
    expect(waits.handBack).toHaveBeenCalledWith(5_000);
    await scheduler.stop();
  });

  it("releaseQueued hands back what waits and keeps what runs", async () => {
    const { scheduler, release } = oneLane();
    const running = settlement();
    const queued = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_1"), settle: running });
    scheduler.submit({ delivery: delivery("dlv_2"), settle: queued });
    scheduler.releaseQueued("consumer gone");
    expect(queued.handBack).toHaveBeenCalledWith(0);
    expect(scheduler.heldCount()).toBe(1);
    release("dlv_1");
    await vi.waitFor(() => expect(running.ack).toHaveBeenCalledOnce());
    await scheduler.stop();
  });

  it("stopping: hands back what is queued and whatever arrives, undelayed, and stops only once", async () => {
    const { scheduler, release, deferred } = oneLane();
    scheduler.submit({ delivery: delivery("dlv_1"), settle: settlement() });
    const queued = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_2"), settle: queued });
    const stopping = scheduler.stop();
    expect(scheduler.phase).toBe("stopping");
    expect(queued.handBack).toHaveBeenCalledWith(0);
    const late = settlement(true);
    scheduler.submit({ delivery: delivery("dlv_3"), settle: late });
    expect(late.handBack).toHaveBeenCalledWith(0);
    expect(deferred).toEqual([]); // going back for another replica is not a deferral
    await scheduler.stop(); // a second stop does not wait again
    release("dlv_1");
    await stopping;
  });
});
