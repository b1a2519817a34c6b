import { describe, expect, it } from "vitest";
import { AdmissionGate, FAN_OUT_DECAY } from "./admission-gate.js";

/** Asks the gate for admission; `admitted()` tells whether it has been granted yet. */
function ask(gate: AdmissionGate): { admitted(): boolean } {
  let admitted = false;
  void gate.admit().then(() => {
    admitted = true;
  });
  return { admitted: () => admitted };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("admission gate", () => {
  it("admits while deliveries waiting to start leave room, and closes once they fill its places", async () => {
    const gate = new AdmissionGate(4);
    for (let i = 0; i < 3; i++) gate.queued();
    await gate.admit(); // 3 waiting < 4
    gate.taken();
    gate.queued();
    expect(gate.load).toBe(4);
    const next = ask(gate);
    await turn();
    expect(next.admitted()).toBe(false);
    expect(gate.state).toBe("closed");
  });

  it("once closed, opens again only when half its places are free", async () => {
    const gate = new AdmissionGate(4);
    for (let i = 0; i < 4; i++) gate.queued();
    const next = ask(gate);
    await turn();
    gate.started(); // 3 of 4 wait: below the places, but the gate stays closed
    await turn();
    expect(next.admitted()).toBe(false);
    expect(gate.state).toBe("closed");
    gate.started(); // 2 of 4: half free
    await turn();
    expect(next.admitted()).toBe(true);
    expect(gate.state).toBe("open");
  });

  it("counts an event being taken as the deliveries events have had, until its own are known", async () => {
    const gate = new AdmissionGate(10);
    gate.fanOut(4);
    await gate.admit();
    await gate.admit();
    expect(gate.load).toBe(8);
    const third = ask(gate);
    await turn();
    expect(third.admitted()).toBe(true); // 8 < 10 when asked
    const fourth = ask(gate);
    await turn();
    expect(fourth.admitted()).toBe(false); // 12 ≥ 10
    // Two events' deliveries turned out to be known (none due now): their places are free, and
    // 4 is at most half of 10.
    gate.taken();
    gate.taken();
    await turn();
    expect(fourth.admitted()).toBe(true);
  });

  it("raises its deliveries-per-event estimate at once and lowers it slowly", async () => {
    const gate = new AdmissionGate(100);
    gate.fanOut(8);
    gate.fanOut(0);
    await gate.admit();
    expect(gate.load).toBeCloseTo(8 - 8 * FAN_OUT_DECAY);
    gate.fanOut(20);
    expect(gate.load).toBe(20);
  });
});
