// The skeleton every batching caller shares (batcher.ts for statements, grpc-batch.ts for gRPC
// calls): entries wait in a queue and go out in batches, those added in the same tick together,
// at most `maxItems` (and `maxWeight`) per batch and `maxInFlight` batches at once. No timer:
// under light load an entry goes out at once on its own; under load, what arrives while batches
// are out forms the next one, so batches grow with the rate by themselves.

export interface BatchQueueLimits<E> {
  /** Entries one batch carries at most. */
  maxItems: number;
  /** Batches out at once; entries added meanwhile wait for one to finish. */
  maxInFlight: number;
  /** An entry's weight (its size in bytes, say); default 0. */
  weightOf?: (entry: E) => number;
  /** Total weight of one batch at most; an entry heavier alone still goes, alone. */
  maxWeight?: number;
}

export interface BatchQueue<E> {
  add(entry: E): void;
}

/**
 * A queue that hands its entries to `send` in batches, in the order added. `send` calls `done`
 * once its batch has finished, which lets the next batch go.
 */
export function createBatchQueue<E>(send: (batch: E[], done: () => void) => void, limits: BatchQueueLimits<E>): BatchQueue<E> {
  const { maxItems, maxInFlight } = limits;
  const weightOf = limits.weightOf ?? (() => 0);
  const maxWeight = limits.maxWeight ?? Number.POSITIVE_INFINITY;
  const pending: { entry: E; weight: number }[] = [];
  let inFlight = 0;
  let scheduled = false;

  /** As many waiting entries, in order, as fit in one batch (at least one). */
  const nextBatchSize = () => {
    let size = 1;
    let weight = pending[0].weight;
    while (size < pending.length && size < maxItems && weight + pending[size].weight <= maxWeight) weight += pending[size++].weight;
    return size;
  };

  const done = () => {
    inFlight -= 1;
    flush();
  };

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && pending.length > 0) {
      const batch = pending.splice(0, nextBatchSize()).map((waiting) => waiting.entry);
      inFlight += 1;
      send(batch, once(done));
    }
  };

  return {
    add(entry) {
      pending.push({ entry, weight: weightOf(entry) });
      // Gather what is added in the same tick before sending.
      if (!scheduled && inFlight < maxInFlight) {
        scheduled = true;
        queueMicrotask(flush);
      }
    },
  };
}

/** `fn` that runs on its first call only: a batch finishes once, whoever says so twice. */
function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
