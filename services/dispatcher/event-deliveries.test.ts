import { describe, expect, it } from "vitest";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler, HeldDelivery } from "./delivery-scheduler.js";
import { createEventDeliveries, type EventDeliveries } from "./event-deliveries.js";

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

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Asks the gate for admission; `admitted()` tells whether it has been granted yet. */
function askAdmission(gate: EventDeliveries): { admitted(): boolean } {
  let admitted = false;
  void gate.admit().then(() => {
    admitted = true;
  });
  return { admitted: () => admitted };
}

/** A gate of `places` that has seen one event with `hooks` deliveries, all still waiting to start. */
async function gateAfterOneEvent(places: number, hooks: number) {
  const { scheduler, queued } = queueingScheduler();
  const gate = createEventDeliveries({ scheduler, store: async () => {}, enqueueOrdered: async () => true }, places);
  await gate.admit();
  gate.release();
  void gate.deliver(message, deliveriesOf("evt_0", hooks));
  await Promise.resolve();
  expect(queued).toHaveLength(hooks);
  return { gate, queued };
}

describe("event deliveries' gate", () => {
  it("counts an event being taken as the deliveries events have had, so a batch cannot overrun the lanes", async () => {
    // One event of four hooks teaches the gate that events have four deliveries.
    const { gate } = await gateAfterOneEvent(16, 4);
    // 4 waiting; each event taken counts 4 more: two more fit (4 + 2 × 4 = 12), a third too
    // (16 would be reached only with it), a fourth waits.
    const asked = [askAdmission(gate), askAdmission(gate), askAdmission(gate), askAdmission(gate)];
    await settle();
    expect(asked.map((a) => a.admitted())).toEqual([true, true, true, false]);
  });

  it("once full, lets events in again when half its places are free, so that they come in groups", async () => {
    const { gate, queued } = await gateAfterOneEvent(8, 8);
    const next = askAdmission(gate);
    await settle();
    expect(next.admitted()).toBe(false);
    for (const held of queued.slice(0, 3)) held.settle.started?.();
    await settle();
    expect(next.admitted()).toBe(false); // 5 of 8 still wait
    queued[3].settle.started?.();
    await settle();
    expect(next.admitted()).toBe(true);
  });
});
