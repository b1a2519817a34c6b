// Group commit for small statements: callers submit one item each; items submitted while the
// database is busy are written together in one statement. Under light load every item goes out
// at once on its own (no timer, no added latency); under heavy load batches grow by themselves,
// so the cost per delivery falls as the rate rises. The queue and its limits are batch-queue.ts.
import { createBatchQueue } from "./batch-queue.js";

export const DEFAULT_MAX_BATCH = 100;
/** One batch at a time: whatever arrives meanwhile forms the next one, so batches grow with the load instead of splitting it. */
export const DEFAULT_MAX_CONCURRENT_BATCHES = 1;

export interface BatcherOptions<I = unknown> {
  maxBatch?: number;
  /** Batches in flight at once (each takes a database connection while it runs). */
  maxConcurrent?: number;
  /** How long a batch may wait for more items (batch-queue.ts); 0, the default: not at all. */
  lingerMs?: number;
  /** An item whose batch goes at once, lingering or not. */
  urgent?: (item: I) => boolean;
  /** Linger only behind a batch in flight (batch-queue.ts): a lone item on an idle batcher goes at once. */
  lingerOnlyWhenBusy?: boolean;
  /** A batch of this many items goes without lingering (batch-queue.ts). */
  lingerBelow?: number;
}

/**
 * Wraps `run` (items → one result per item, in order) into a function of one item. A failing
 * batch fails each of its items' promises.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: BatcherOptions<I> = {}): (item: I) => Promise<O> {
  const queue = createBatchQueue<Waiting<I, O>>(
    (batch, done) => {
      run(batch.map((entry) => entry.item))
        .then((results) => {
          if (results.length !== batch.length) throw new Error(`batch answered ${results.length} results for ${batch.length} items`);
          for (const [i, entry] of batch.entries()) entry.resolve(results[i]);
        })
        .catch(async (error) => {
          // One bad item must not fail the others: a batch that fails is tried again item by
          // item, so only the item that fails alone is rejected.
          if (batch.length === 1) return batch[0].reject(error);
          for (const entry of batch) {
            await run([entry.item]).then(
              (results) => entry.resolve(results[0]),
              (alone) => entry.reject(alone),
            );
          }
        })
        .finally(done);
    },
    {
      maxItems: options.maxBatch ?? DEFAULT_MAX_BATCH,
      maxInFlight: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_BATCHES,
      lingerMs: options.lingerMs,
      urgent: options.urgent && ((entry) => options.urgent!(entry.item)),
      lingerOnlyWhenBusy: options.lingerOnlyWhenBusy,
      lingerBelow: options.lingerBelow,
    },
  );
  return (item) => new Promise<O>((resolve, reject) => queue.add({ item, resolve, reject }));
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}
