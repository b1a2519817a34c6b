import { describe, expect, it, vi } from "vitest";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import { createSaga, withSagaTransaction } from "./saga.js";

const quietLogger = () => ({ error: vi.fn() });

/** A pool whose one client records the statements it is sent; COMMIT can be made to fail. */
function fakePool(options: { failCommit?: boolean } = {}) {
  const log: string[] = [];
  const client = {
    query: vi.fn(async (sql: string) => {
      log.push(sql);
      if (sql === "COMMIT" && options.failCommit) throw new Error("connection lost");
      return { rows: [], rowCount: 0 };
    }),
    release: vi.fn(),
  } as unknown as PoolClient;
  return { pool: { connect: async () => client, emit: () => true } as unknown as Pool, log };
}

describe("saga", () => {
  it("compensates newest first and keeps going past a failing undo", async () => {
    const logger = quietLogger();
    const saga = createSaga(logger);
    const order: string[] = [];
    saga.onFailure("first", async () => void order.push("first"));
    saga.onFailure("broken", async () => {
      order.push("broken");
      throw new Error("nope");
    });
    saga.onFailure("third", async () => void order.push("third"));
    expect(await saga.compensate()).toEqual(["broken"]);
    expect(order).toEqual(["third", "broken", "first"]);
    expect(logger.error).toHaveBeenCalledOnce();
    // Each undo runs once.
    expect(await saga.compensate()).toEqual([]);
    expect(order).toHaveLength(3);
  });
});

describe("withSagaTransaction", () => {
  it("undoes before the rollback when the work fails, and rethrows the original error", async () => {
    const { pool, log } = fakePool();
    const failure = new Error("guard failed");
    await expect(
      withSagaTransaction(pool, quietLogger(), async (_client, saga) => {
        saga.onFailure("release", async () => void log.push("undo"));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(log).toEqual(["BEGIN", "undo", "ROLLBACK"]);
  });

  it("undoes once after a failed commit", async () => {
    const { pool, log } = fakePool({ failCommit: true });
    await expect(
      withSagaTransaction(pool, quietLogger(), async (_client, saga) => {
        saga.onFailure("release", async () => void log.push("undo"));
        return 1;
      }),
    ).rejects.toThrow("connection lost");
    expect(log).toEqual(["BEGIN", "COMMIT", "ROLLBACK", "undo"]);
  });

  it("undoes nothing when the work commits", async () => {
    const { pool, log } = fakePool();
    const result = await withSagaTransaction(pool, quietLogger(), async (_client, saga) => {
      saga.onFailure("release", async () => void log.push("undo"));
      return 42;
    });
    expect(result).toBe(42);
    expect(log).toEqual(["BEGIN", "COMMIT"]);
  });
});
