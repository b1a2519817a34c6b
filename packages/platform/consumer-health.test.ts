import { describe, expect, it } from "vitest";
import { createConsumerHealth, type ProgressSample } from "./consumer-health.js";
import { createLogger } from "./logger.js";
import { createOps } from "./ops.js";

const base: ProgressSample = { ackFloor: 10, pending: 0, ackPending: 0, maxAckPending: 1_000, held: 0, settled: 5 };

function setup() {
  let t = 0;
  const ops = createOps("health-test", {});
  const health = createConsumerHealth({ ops, logger: createLogger("health-test", "silent"), stallWindowMs: 60_000, now: () => t });
  let sample = base;
  let stalls = 0;
  health.watch({ name: "c1", sample: async () => sample, onStall: () => void stalls++ });
  const at = async (ms: number, next: Partial<ProgressSample>) => {
    t = ms;
    sample = { ...sample, ...next };
    await health.checkNow();
  };
  return { health, ops, at, stalls: () => stalls };
}

describe("consumer health", () => {
  it("calls a consumer stalled once its ack floor and settled count stood still for the window while messages were pending", async () => {
    const { health, ops, at, stalls } = setup();
    await at(0, { pending: 50 });
    await at(30_000, {});
    expect(health.stalled()).toEqual([]);
    await at(60_001, {});
    expect(health.stalled()).toEqual(["c1"]);
    expect(stalls()).toBe(1);
    expect((await ops.answer("/readyz"))!.status).toBe(503);
    await at(90_000, {});
    expect(stalls()).toBe(1); // asked to restart once per stall
    await at(95_000, { ackFloor: 11 });
    expect(health.stalled()).toEqual([]);
    expect((await ops.answer("/readyz"))!.status).toBe(200);
    health.stop();
  });

  it("counts ack-pending at its limit and messages held here as waiting work, but not an idle consumer", async () => {
    const idle = setup();
    await idle.at(0, {});
    await idle.at(120_000, {});
    expect(idle.health.stalled()).toEqual([]);
    idle.health.stop();

    const full = setup();
    await full.at(0, { ackPending: 1_000 });
    await full.at(60_000, {});
    expect(full.health.stalled()).toEqual(["c1"]);
    full.health.stop();

    const holding = setup();
    await holding.at(0, { held: 3, maxAckPending: -1, ackPending: 3 });
    await holding.at(59_999, {});
    expect(holding.health.stalled()).toEqual([]);
    await holding.at(60_000, {});
    expect(holding.health.stalled()).toEqual(["c1"]);
    holding.health.stop();
  });

  it("keeps a consumer that settles messages healthy though its ack floor stands (retries waiting in JetStream)", async () => {
    const { health, at } = setup();
    await at(0, { pending: 5, held: 2, maxAckPending: -1, ackPending: 400 });
    for (let t = 20_000; t <= 200_000; t += 20_000) await at(t, { settled: 5 + t });
    expect(health.stalled()).toEqual([]);
    health.stop();
  });

  it("exports the server's count of redelivered messages per consumer (WaybillConsumerRedelivering)", async () => {
    const { health, ops, at } = setup();
    await at(0, { redelivered: 7 });
    expect(await ops.registry.metrics()).toMatch(/^waybill_consumer_redelivered\{consumer="c1",service="health-test"\} 7$/m);
    await at(5_000, { redelivered: 0 });
    expect(await ops.registry.metrics()).toMatch(/^waybill_consumer_redelivered\{consumer="c1",service="health-test"\} 0$/m);
    health.stop();
  });
});
