// An explicit compensation stack (saga): each remote step that succeeded registers how to undo
// it; when the local commit then fails, the undos run newest first. A failing undo is logged
// and does not stop the others.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";

export interface Compensation {
  name: string;
  run(): Promise<unknown>;
}

export interface Saga {
  /** Registers the undo of a step that has just succeeded. */
  onFailure(name: string, run: () => Promise<unknown>): void;
  /** Runs the registered undos newest first; returns the names of those that failed. */
  compensate(): Promise<string[]>;
}

export function createSaga(logger: Pick<Logger, "error">): Saga {
  const stack: Compensation[] = [];
  return {
    onFailure(name, run) {
      stack.push({ name, run });
    },
    async compensate() {
      const failed: string[] = [];
      while (stack.length > 0) {
        const step = stack.pop()!;
        try {
          await step.run();
        } catch (error) {
          failed.push(step.name);
          logger.error({ err: error, compensation: step.name }, "compensation failed; state needs reconciling");
        }
      }
      return failed;
    },
  };
}

/**
 * Runs `fn` in a database transaction with a saga beside it. When `fn` throws, the undos run
 * before the rollback, while the transaction still holds its row locks, so no other operation
 * acts on the half-done state; when the commit itself fails, they run right after.
 */
export async function withSagaTransaction<T>(pool: Pool, logger: Pick<Logger, "error">, fn: (client: PoolClient, saga: Saga) => Promise<T>): Promise<T> {
  const saga = createSaga(logger);
  try {
    return await withTransaction(pool, async (client) => {
      try {
        return await fn(client, saga);
      } catch (error) {
        await saga.compensate();
        throw error;
      }
    });
  } catch (error) {
    await saga.compensate(); // empty unless the commit failed
    throw error;
  }
}
