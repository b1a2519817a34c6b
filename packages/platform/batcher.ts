// Group commit for small statements: callers submit one item each; items submitted while the
// database is busy are written together in one statement. Under light load every item goes out
// at once on its own (no timer, no added latency); under heavy load batches grow by themselves,
// so the cost per delivery falls as the rate rises.

export const DEFAULT_MAX_BATCH = 100;
/** One batch at a time: whatever arrives meanwhile forms the next one (measured best here). */
export const DEFAULT_MAX_CONCURRENT_BATCHES = 1;

export interface BatcherOptions {
  maxBatch?: number;
  /** Batches in flight at once (each takes a database connection while it runs). */
  maxConcurrent?: number;
}

/**
 * Wraps `run` (items → one result per item, in order) into a function of one item. A failing
 * batch fails each of its items' promises.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: BatcherOptions = {}): (item: I) => Promise<O> {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_BATCHES;
  let pending: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (inFlight < maxConcurrent && pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      inFlight += 1;
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
        .finally(() => {
          inFlight -= 1;
          flush();
        });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      // Gather what is submitted in the same tick before sending.
      if (!scheduled && inFlight < maxConcurrent) {
        scheduled = true;
        queueMicrotask(flush);
      }
    });
}
