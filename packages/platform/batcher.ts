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
  /**
   * With batches in flight side by side: each batch's items are answered only after every earlier
   * batch's were, even when its statement came back first, for callers that go on in the order
   * they submitted. A batch waiting for an earlier one holds its place in flight meanwhile.
   */
  inOrder?: boolean;
  /** What goes together when nothing holds a batch back (batch-queue.ts): one microtask checkpoint's items (default) or one turn's. */
  gather?: "microtask" | "turn";
}

/**
 * Wraps `run` (items → one result per item, in order) into a function of one item. A failing
 * batch fails each of its items' promises.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: BatcherOptions<I> = {}): (item: I) => Promise<O> {
  /** Settles once the last batch sent has answered its items (inOrder). */
  let lastAnswered: Promise<void> = Promise.resolve();
  const queue = createBatchQueue<Waiting<I, O>>(
    (batch, done) => {
      const earlier = options.inOrder ? lastAnswered : undefined;
      const answered = answer(batch, earlier).finally(done);
      if (options.inOrder) lastAnswered = answered;
    },
    {
      maxItems: options.maxBatch ?? DEFAULT_MAX_BATCH,
      maxInFlight: options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_BATCHES,
      lingerMs: options.lingerMs,
      urgent: options.urgent && ((entry) => options.urgent!(entry.item)),
      lingerOnlyWhenBusy: options.lingerOnlyWhenBusy,
      lingerBelow: options.lingerBelow,
      gather: options.gather,
    },
  );

  /** Runs the batch and answers its items, after `earlier` has settled when given. Never rejects. */
  async function answer(batch: Waiting<I, O>[], earlier: Promise<void> | undefined): Promise<void> {
    let results: O[] | undefined;
    let failure: unknown;
    try {
      results = await run(batch.map((entry) => entry.item));
      if (results.length !== batch.length) throw new Error(`batch answered ${results.length} results for ${batch.length} items`);
    } catch (error) {
      results = undefined;
      failure = error;
    }
    if (earlier) await earlier;
    if (results !== undefined) {
      for (const [i, entry] of batch.entries()) entry.resolve(results[i]);
      return;
    }
    // One bad item must not fail the others: a batch that fails is tried again item by item, so
    // only the item that fails alone is rejected.
    if (batch.length === 1) return batch[0].reject(failure);
    for (const entry of batch) {
      await run([entry.item]).then(
        (alone) => entry.resolve(alone[0]),
        (alone) => entry.reject(alone),
      );
    }
  }

  return (item) => new Promise<O>((resolve, reject) => queue.add({ item, resolve, reject }));
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}
