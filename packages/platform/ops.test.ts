// Readiness answers from cached background checks: each dependency on its own timer and
// timeout, so a slow one neither delays the probe nor hides the others' state.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createOps, type Ops } from "./ops.js";

const never = () => new Promise<void>(() => {});
let ops: Ops | undefined;
afterEach(() => ops?.setDraining());

async function readyz(o: Ops) {
  const answer = (await o.answer("/readyz"))!;
  return { status: answer.status, body: JSON.parse(answer.body) };
}

describe("createOps readiness", () => {
  it("answers at once from the cache while a dependency hangs, and reports the hang as a timeout", async () => {
    ops = createOps("svc", { checks: { database: async () => {}, slow: never }, intervalMs: 60_000, timeoutMs: 50 });
    const before = await readyz(ops);
    expect(before.status).toBe(503);
    expect(before.body.checks.slow).toBe("pending");
    await ops.firstRound;
    const after = await readyz(ops);
    expect(after.status).toBe(503);
    expect(after.body.checks.database).toBe("ok");
    expect(after.body.checks.slow).toMatch(/no answer within 50 ms/);
  });

  it("runs checks in parallel: two hanging checks both time out within one timeout", async () => {
    ops = createOps("svc", { checks: { a: never, b: never }, intervalMs: 60_000, timeoutMs: 100 });
    const started = performance.now();
    await ops.firstRound;
    // In series this would take two timeouts.
    expect(performance.now() - started).toBeLessThan(190);
  });

  it("does not call a check on the request path", async () => {
    let calls = 0;
    ops = createOps("svc", { checks: { db: async () => void calls++ }, intervalMs: 60_000 });
    await ops.firstRound;
    for (let i = 0; i < 5; i++) expect((await readyz(ops)).status).toBe(200);
    expect(calls).toBe(1);
  });

  it("reports an informational dependency without going unready", async () => {
    ops = createOps("edge", { informational: { orders: async () => Promise.reject(new Error("unreachable")) }, intervalMs: 60_000 });
    await ops.firstRound;
    const ready = await readyz(ops);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.orders).toBe("unreachable");
  });

  it("picks up a recovered dependency on the next background round", async () => {
    let up = false;
    ops = createOps("svc", {
      checks: {
        db: async () => {
          if (!up) throw new Error("down");
        },
      },
      intervalMs: 20,
    });
    await ops.firstRound;
    expect((await readyz(ops)).status).toBe(503);
    up = true;
    let status = 503;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      status = (await readyz(ops)).status;
    }
    expect(status).toBe(200);
  });

  it("does not start a hung check again until it settles, so hung checks never pile up", async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      let release = () => {};
      ops = createOps("svc", {
        checks: {
          db: () => {
            calls++;
            return new Promise<void>((r) => (release = r));
          },
        },
        intervalMs: 10,
        timeoutMs: 5,
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(calls).toBe(1);
      expect((await readyz(ops)).body.checks.db).toMatch(/no answer within 5 ms/);
      release();
      await vi.advanceTimersByTimeAsync(10);
      expect(calls).toBe(2);
      release(); // the second answers in time
      await vi.advanceTimersByTimeAsync(1);
      expect((await readyz(ops)).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers draining once draining starts", async () => {
    ops = createOps("svc", { checks: { db: async () => {} } });
    await ops.firstRound;
    ops.setDraining();
    expect(await readyz(ops)).toMatchObject({ status: 503, body: { status: "draining" } });
  });
});
