import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { notifyCommitted, type Pool } from "../platform/db.js";
import { createLogger } from "../platform/logger.js";
import { kickRelayOnCommit } from "./relay-kick.js";

const logger = createLogger("test", "silent");

describe("kickRelayOnCommit", () => {
  it("drains on every commit, and once more for commits that land while a drain runs", async () => {
    const pool = new EventEmitter() as unknown as Pool;
    let drains = 0;
    let finish: (() => void) | undefined;
    const kick = kickRelayOnCommit(pool, () => new Promise<void>((resolve) => ((drains += 1), (finish = resolve))), logger);
    notifyCommitted(pool);
    expect(drains).toBe(1);
    notifyCommitted(pool); // while the first drain runs: not lost, not run twice at once
    notifyCommitted(pool);
    expect(drains).toBe(1);
    finish!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(drains).toBe(2);
    finish!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(drains).toBe(2);
    notifyCommitted(pool);
    expect(drains).toBe(3);
    finish!();
    await kick.stop();
    notifyCommitted(pool);
    expect(drains).toBe(3);
  });

  it("gives up quietly on a failed drain and starts again on the next commit", async () => {
    const pool = new EventEmitter() as unknown as Pool;
    let calls = 0;
    const kick = kickRelayOnCommit(pool, async () => {
      calls += 1;
      if (calls === 1) throw new Error("NATS away");
    }, logger);
    notifyCommitted(pool);
    await new Promise((resolve) => setImmediate(resolve));
    notifyCommitted(pool);
    await kick.stop();
    expect(calls).toBe(2);
  });
});
