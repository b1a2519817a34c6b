import { describe, expect, it } from "vitest";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler, HeldDelivery } from "./delivery-scheduler.js";
import { createEventDeliveries } from "./event-deliveries.js";

/** A scheduler that keeps every delivery queued until the test starts it. */
function queueingScheduler() {
  const queued: HeldDelivery[] = [];
  const scheduler = { submit: (held: HeldDelivery) => void queued.push(held) } as unknown as DeliveryScheduler;
  return { scheduler, queued };
}

const message = { working() {}, info: { deliveryCount: 1 }, headers: undefined };
const deliveriesOf = (eventId: string, hooks: number): DeliveryMessage[] =>
  Array.from({ length: hooks }, (_, i) => ({
    deliveryId: `${eventId}:hook_${i}`,
    tenantId: "ten_1",
    hookId: `hook_${i}`,
    trigger: "event",
    eventId,
    eventKind: "order.created",
    eventJson: "{}",
  }));

/** Whether `admit()` resolves before the microtasks and timers queued now have run. */
async function admitsNow(admit: () => Promise<void>): Promise<boolean> {
  let admitted = false;
  void admit().then(() => {
    admitted = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  return admitted;
}

describe("event deliveries' gate", () => {
  it("counts an event being taken as the deliveries events have had, so a batch cannot overrun the lanes", async () => {
    const { scheduler, queued } = queueingScheduler();
    const gate = createEventDeliveries({ scheduler, store: async () => {}, enqueueOrdered: async () => true }, 16);
    // One event of four hooks teaches the gate that events have four deliveries.
    await gate.admit();
    gate.release();
    void gate.deliver(message, deliveriesOf("evt_0", 4));
    await Promise.resolve();
    expect(queued).toHaveLength(4);
    // 4 waiting; each event taken counts 4 more: two more fit (4 + 2 × 4 = 12), a third too
    // (16 would be reached only with it), a fourth waits.
    expect(await admitsNow(gate.admit)).toBe(true);
    expect(await admitsNow(gate.admit)).toBe(true);
    expect(await admitsNow(gate.admit)).toBe(true);
    expect(await admitsNow(gate.admit)).toBe(false);
  });

  it("once full, lets events in again when half its places are free, so that they come in groups", async () => {
    const { scheduler, queued } = queueingScheduler();
    const gate = createEventDeliveries({ scheduler, store: async () => {}, enqueueOrdered: async () => true }, 8);
    await gate.admit();
    gate.release();
    void gate.deliver(message, deliveriesOf("evt_0", 8));
    await Promise.resolve();
    let admitted = false;
    void gate.admit().then(() => {
      admitted = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(admitted).toBe(false);
    for (const held of queued.slice(0, 3)) held.settle.started?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(admitted).toBe(false); // 5 of 8 still wait
    queued[3].settle.started?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(admitted).toBe(true);
  });
});
