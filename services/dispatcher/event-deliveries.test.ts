import { describe, expect, it } from "vitest";
import { TRANSACTION_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler, HeldDelivery } from "./delivery-scheduler.js";
import { AdmissionGate } from "./admission-gate.js";
import { createEventDeliveries, DirectSettlement, EventInHand, type EventDeliveries } from "./event-deliveries.js";

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

describe("a new event's delivery settlement", () => {
  /** One event in hand with `count` deliveries, its outcome, and what was stored in DELIVERIES. */
  function eventOf(count: number, store: (delivery: DeliveryMessage) => Promise<void> = async () => {}) {
    const stored: string[] = [];
    let outcome: "pending" | "settled" | Error = "pending";
    let event!: EventInHand;
    void new Promise<void>((resolve, reject) => {
      const recordingStore = (delivery: DeliveryMessage) => {
        stored.push(delivery.deliveryId);
        return store(delivery);
      };
      event = new EventInHand(message, count, recordingStore, resolve, reject);
    }).then(
      () => (outcome = "settled"),
      (error: Error) => (outcome = error),
    );
    return { event, stored, outcome: () => outcome };
  }

  it("holds a gate place until it leaves its queue, once, however the scheduler settles it", async () => {
    const gate = new AdmissionGate(8);
    const { event } = eventOf(2);
    const [first, second] = deliveriesOf("evt_1", 2).map((d) => new DirectSettlement(d, event, gate));
    expect(gate.load).toBe(2);
    expect(first.state).toBe("queued");
    first.started();
    first.started();
    expect(first.state).toBe("running");
    expect(gate.load).toBe(1);
    first.ack();
    expect(first.state).toBe("settled");
    expect(gate.load).toBe(1);
    second.handBack(); // handed back from its queue: it leaves the queue and is stored
    expect(second.state).toBe("settled");
    expect(gate.load).toBe(0);
  });

  it("settles its event once every delivery is recorded or stored, whatever else the scheduler calls", async () => {
    const gate = new AdmissionGate(8);
    const { event, stored, outcome } = eventOf(2);
    const [first, second] = deliveriesOf("evt_1", 2).map((d) => new DirectSettlement(d, event, gate));
    first.ack();
    first.handBack(); // already settled: not stored, not counted again
    await settle();
    expect(outcome()).toBe("pending");
    expect(stored).toEqual([]);
    second.handBack();
    await settle();
    expect(stored).toEqual(["evt_1:hook_1"]);
    expect(outcome()).toBe("settled");
  });

  it("fails its event when a delivery could not be stored, after the others settled", async () => {
    const gate = new AdmissionGate(8);
    const { event, outcome } = eventOf(2, async () => {
      throw new Error("NATS away");
    });
    const [first, second] = deliveriesOf("evt_1", 2).map((d) => new DirectSettlement(d, event, gate));
    first.handBack();
    await settle();
    expect(outcome()).toBe("pending");
    second.ack();
    await settle();
    expect((outcome() as Error).message).toBe("NATS away");
  });

  it("carries the event's trace and delivery count; keeps no delay (DELIVERIES decides anew)", () => {
    const headers = new Map([[TRANSACTION_ID_NATS_HEADER, "txn_1"]]);
    const traced = { ...message, info: { deliveryCount: 3 }, headers: { get: (name: string) => headers.get(name) ?? "" } };
    const event = new EventInHand(
      traced,
      1,
      async () => {},
      () => {},
      () => {},
    );
    const settlement = new DirectSettlement(deliveriesOf("evt_1", 1)[0], event, new AdmissionGate(8));
    expect(settlement.deliveryCount).toBe(3);
    expect(settlement.transactionId).toBe("txn_1");
    expect(settlement.keepsDelay).toBe(false);
    expect(new DirectSettlement(deliveriesOf("evt_2", 1)[0], eventOf(1).event, new AdmissionGate(8)).transactionId).toBeUndefined();
  });
});
