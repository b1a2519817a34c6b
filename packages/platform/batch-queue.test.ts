// The batching core alone: what goes out together, when, and how many batches at once.
import { describe, expect, it } from "vitest";
import { createBatchQueue, type BatchQueueLimits } from "./batch-queue.js";

/** A queue of numbers whose batches are recorded and finish only when the test says so. */
function recordingQueue(limits: BatchQueueLimits<number>) {
  const sent: number[][] = [];
  const finishers: (() => void)[] = [];
  const queue = createBatchQueue<number>((batch, done) => {
    sent.push(batch);
    finishers.push(done);
  }, limits);
  const finishNext = () => finishers.shift()?.();
  return { queue, sent, finishNext };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("batch queue", () => {
  it("sends a lone entry at once, without waiting for a timer", async () => {
    const { queue, sent } = recordingQueue({ maxItems: 10, maxInFlight: 1 });
    queue.add(1);
    expect(sent).toEqual([]); // not synchronously: entries of the same tick go together
    await Promise.resolve();
    expect(sent).toEqual([[1]]);
  });

  it("sends entries added in the same tick as one batch, split at maxItems", async () => {
    const { queue, sent } = recordingQueue({ maxItems: 3, maxInFlight: 5 });
    for (const n of [1, 2, 3, 4, 5, 6, 7]) queue.add(n);
    await tick();
    expect(sent).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it("gather turn: entries added across awaits in one turn of the event loop go as one batch", async () => {
    // A consumer's loop takes a pulled batch of messages one at a time, awaiting between them.
    const addAcrossAwaits = async (queue: { add(n: number): void }) => {
      for (const n of [1, 2, 3, 4]) {
        queue.add(n);
        await Promise.resolve();
        await Promise.resolve();
      }
    };
    const byCheckpoint = recordingQueue({ maxItems: 10, maxInFlight: 1 });
    await addAcrossAwaits(byCheckpoint.queue);
    await tick();
    expect(byCheckpoint.sent).toEqual([[1]]); // the first went alone; the rest wait for it
    const byTurn = recordingQueue({ maxItems: 10, maxInFlight: 1, gather: "turn" });
    await addAcrossAwaits(byTurn.queue);
    expect(byTurn.sent).toEqual([]);
    await tick();
    expect(byTurn.sent).toEqual([[1, 2, 3, 4]]);
  });

  it("gather turn with lingerOnlyWhenBusy: the turn's entries go at once, as a lone entry would", async () => {
    const { queue, sent } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 10_000, lingerOnlyWhenBusy: true, gather: "turn" });
    queue.add(1);
    await Promise.resolve();
    queue.add(2);
    await tick();
    expect(sent).toEqual([[1, 2]]);
  });

  it("keeps at most maxInFlight batches out; what arrives meanwhile forms the next batch", async () => {
    const { queue, sent, finishNext } = recordingQueue({ maxItems: 10, maxInFlight: 1 });
    queue.add(0);
    await tick();
    for (const n of [1, 2, 3]) queue.add(n);
    await tick();
    expect(sent).toEqual([[0]]);
    finishNext();
    expect(sent).toEqual([[0], [1, 2, 3]]);
    queue.add(4);
    await tick();
    expect(sent).toEqual([[0], [1, 2, 3]]);
    finishNext();
    expect(sent).toEqual([[0], [1, 2, 3], [4]]);
  });

  it("counts a batch finished once even when told twice", async () => {
    const sent: number[][] = [];
    let finish = () => {};
    const queue = createBatchQueue<number>(
      (batch, done) => {
        sent.push(batch);
        if (sent.length === 1) finish = done;
      },
      { maxItems: 1, maxInFlight: 1 },
    );
    queue.add(1);
    queue.add(2);
    queue.add(3);
    await tick();
    finish();
    finish();
    expect(sent).toEqual([[1], [2]]);
  });

  it("closes a batch before it passes maxWeight, and sends an entry heavier than that alone", async () => {
    const { queue, sent } = recordingQueue({ maxItems: 10, maxInFlight: 10, weightOf: (n) => n, maxWeight: 10 });
    for (const n of [4, 5, 2, 20, 1, 1]) queue.add(n);
    await tick();
    expect(sent).toEqual([[4, 5], [2], [20], [1, 1]]);
  });

  describe("lingering (lingerMs)", () => {
    const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

    it("holds a lone entry until it has waited lingerMs, gathering what comes meanwhile", async () => {
      const { queue, sent } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 40 });
      queue.add(1);
      await tick();
      queue.add(2);
      await wait(10);
      expect(sent).toEqual([]);
      await wait(60);
      expect(sent).toEqual([[1, 2]]);
    });

    it("sends a full batch at once, without lingering", async () => {
      const { queue, sent } = recordingQueue({ maxItems: 3, maxInFlight: 1, lingerMs: 10_000 });
      for (const n of [1, 2, 3]) queue.add(n);
      await tick();
      expect(sent).toEqual([[1, 2, 3]]);
    });

    it("sends at once a batch holding an urgent entry, with what waited before it", async () => {
      const { queue, sent } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 10_000, urgent: (n) => n < 0 });
      queue.add(1);
      await tick();
      expect(sent).toEqual([]);
      queue.add(-1);
      await tick();
      expect(sent).toEqual([[1, -1]]);
      // The urgent entry is gone with its batch: the next lone entry lingers again.
      queue.add(2);
      await tick();
      expect(sent).toEqual([[1, -1]]);
    });

    it("lingers after a batch finishes too: the next goes when its first entry has waited long enough", async () => {
      const { queue, sent, finishNext } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 30 });
      queue.add(1);
      await wait(50);
      expect(sent).toEqual([[1]]);
      queue.add(2);
      await wait(50); // 2 has waited past its linger while 1 was out: it goes as soon as 1 finishes
      finishNext();
      expect(sent).toEqual([[1], [2]]);
    });

    it("lingerOnlyWhenBusy: a lone entry goes at once; entries behind a batch in flight, or just after one, wait for company", async () => {
      const { queue, sent, finishNext } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 40, lingerOnlyWhenBusy: true });
      queue.add(1);
      await tick();
      expect(sent).toEqual([[1]]);
      queue.add(2);
      finishNext();
      queue.add(3);
      await wait(10);
      // 2 came while 1 was out: it waits for its linger, and 3 joins it.
      expect(sent).toEqual([[1]]);
      await wait(60);
      expect(sent).toEqual([[1], [2, 3]]);
      finishNext();
      // Just after a batch finished (under load, the next entry comes at once): it waits for company.
      queue.add(4);
      await wait(10);
      queue.add(5);
      await tick();
      expect(sent).toEqual([[1], [2, 3]]);
      await wait(50);
      expect(sent).toEqual([[1], [2, 3], [4, 5]]);
      finishNext();
      // Quiet for longer than the linger: the next lone entry does not wait.
      await wait(50);
      queue.add(6);
      await tick();
      expect(sent).toEqual([[1], [2, 3], [4, 5], [6]]);
    });

    it("lingerBelow: a batch that holds that many goes without lingering", async () => {
      const { queue, sent, finishNext } = recordingQueue({ maxItems: 10, maxInFlight: 1, lingerMs: 10_000, lingerOnlyWhenBusy: true, lingerBelow: 3 });
      queue.add(1);
      await tick();
      queue.add(2);
      queue.add(3);
      finishNext();
      await tick();
      expect(sent).toEqual([[1]]); // two behind the first: they linger
      queue.add(4);
      await tick();
      expect(sent).toEqual([[1], [2, 3, 4]]);
    });
  });
});
