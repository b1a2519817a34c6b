// The skeleton every batching caller shares (batcher.ts for statements, grpc-batch.ts for gRPC
// calls): entries wait in a queue and go out in batches, those added in the same tick (or turn:
// `gather`) together, at most `maxItems` (and `maxWeight`) per batch and `maxInFlight` batches at
// once. No timer unless asked for (`lingerMs`): under light load an entry goes out at once on its
// own; under load, what arrives while batches are out forms the next one, so batches grow with the
// rate by themselves.

export interface BatchQueueLimits<E> {
  /** Entries one batch carries at most. */
  maxItems: number;
  /** Batches out at once; entries added meanwhile wait for one to finish. */
  maxInFlight: number;
  /** An entry's weight (its size in bytes, say); default 0. */
  weightOf?: (entry: E) => number;
  /** Total weight of one batch at most; an entry heavier alone still goes, alone. */
  maxWeight?: number;
  /**
   * How long a batch may wait for company (0, the default: not at all): it goes once its first
   * entry has waited this long, or at once when it is full or an entry is `urgent`. For writes
   * whose callers do not wait on them for anything a user sees, where each statement's fixed cost
   * (a commit) is worth spreading over more rows.
   */
  lingerMs?: number;
  /** An entry that must not linger: its batch goes at once. */
  urgent?: (entry: E) => boolean;
  /**
   * Linger only while busy: behind a batch that is out, or less than `lingerMs` after one
   * finished. An entry added after a quiet `lingerMs` goes at once, as without `lingerMs`. For
   * writes a user waits on at the end (an event's webhooks): a lone entry pays no wait; under load,
   * each statement's fixed cost is spread wider. (Busy meaning only "a batch is out", the entry
   * that came just after one finished went alone: under bench:webhooks's load every other event
   * intake statement carried one event (63, 1, 15, 1, …); then one in three did (1, 63, 15, …),
   * after a pause of more than the linger; with `gather: "turn"` the intake's first goes with its group.)
   */
  lingerOnlyWhenBusy?: boolean;
  /** A batch that holds this many entries goes without lingering (default `maxItems`): where a backlog is, waiting adds nothing. */
  lingerBelow?: number;
  /**
   * What goes together when nothing holds a batch back: the entries added in the same microtask
   * checkpoint (`microtask`, the default), or in the same turn of the event loop (`turn`). For
   * callers fed by a loop that awaits between entries, such as a consumer taking a pulled batch
   * of messages one at a time: within one checkpoint the first entry would go alone, a statement
   * of its own.
   */
  gather?: "microtask" | "turn";
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
  const lingerMs = limits.lingerMs ?? 0;
  const lingerBelow = Math.min(limits.lingerBelow ?? maxItems, maxItems);
  const urgent = limits.urgent ?? (() => false);
  const gatherTurn = limits.gather === "turn";
  const pending: { entry: E; weight: number; at: number; urgent: boolean }[] = [];
  let inFlight = 0;
  /** When the last batch finished (performance.now()); only kept when lingering. */
  let lastDoneAt = Number.NEGATIVE_INFINITY;
  let scheduled = false;
  let lingering: NodeJS.Timeout | undefined;
  /** Waiting entries that may not linger. */
  let urgentWaiting = 0;

  /** As many waiting entries, in order, as fit in one batch (at least one). */
  const nextBatchSize = () => {
    let size = 1;
    let weight = pending[0].weight;
    while (size < pending.length && size < maxItems && weight + pending[size].weight <= maxWeight) weight += pending[size++].weight;
    return size;
  };

  const done = () => {
    inFlight -= 1;
    if (lingerMs > 0) lastDoneAt = performance.now();
    flush();
  };

  /** Whether the next batch should wait for company, and if so, arranges to look again when its wait ends. */
  const lingers = (): boolean => {
    if (lingerMs <= 0 || urgentWaiting > 0 || nextBatchSize() >= lingerBelow) return false;
    const left = pending[0].at + lingerMs - performance.now();
    if (left <= 0) return false;
    if (!lingering) {
      lingering = setTimeout(() => {
        lingering = undefined;
        flush();
      }, left);
    }
    return true;
  };

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && pending.length > 0 && !lingers()) {
      const taken = pending.splice(0, nextBatchSize());
      for (const waiting of taken) if (waiting.urgent) urgentWaiting -= 1;
      inFlight += 1;
      send(
        taken.map((waiting) => waiting.entry),
        once(done),
      );
    }
  };

  return {
    add(entry) {
      const at = lingerMs > 0 ? performance.now() : 0;
      const quiet = inFlight === 0 && pending.length === 0 && at - lastDoneAt >= lingerMs;
      const goesAtOnce = lingerMs > 0 && (urgent(entry) || (limits.lingerOnlyWhenBusy === true && quiet));
      pending.push({ entry, weight: weightOf(entry), at, urgent: goesAtOnce });
      if (goesAtOnce) urgentWaiting += 1;
      // Gather what is added in the same tick (or turn) before sending.
      if (!scheduled && inFlight < maxInFlight) {
        scheduled = true;
        if (gatherTurn) setImmediate(flush);
        else queueMicrotask(flush);
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
