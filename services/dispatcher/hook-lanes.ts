// Bounded concurrency per hook: each hook has a lane with at most `perHook` deliveries running
// and a short queue behind them. A hook whose receiver hangs fills only its own lane; what does
// not fit is handed back to the caller (which returns it to JetStream for later) instead of
// waiting in front of other hooks' deliveries.

import { LRUCache } from "lru-cache";

export const LANE_EWMA_WEIGHT = 0.2;
/** Hooks whose run-time estimate is remembered after their lane empties. */
export const LANE_AVERAGES_MAX = 10_000;

export interface HookLanesOptions<T> {
  perHook: number;
  /** Queue places per hook unless submit() says otherwise. */
  queuePerHook: number;
  run(hookId: string, item: T): Promise<void>;
  now?: () => number;
}

export type Submission = "started" | "queued" | "full";

export interface HookLanes<T> {
  submit(hookId: string, item: T, maxQueued?: number): Submission;
  /** Items running or queued in every lane (for ack heartbeats). */
  held(): T[];
  heldCount(): number;
  /** Running + queued items of one hook. */
  backlog(hookId: string): number;
  /** Moving average of one hook's run times in ms (undefined before the first finished run). */
  averageMs(hookId: string): number | undefined;
  /** Removes and returns every queued (not yet running) item, of one hook or of all. */
  drainQueued(hookId?: string): T[];
  /** Resolves once fewer than `count` items are held. */
  whenBelow(count: number): Promise<void>;
  /** Resolves once nothing runs. */
  idle(): Promise<void>;
}

interface Lane<T> {
  running: Set<T>;
  queue: T[];
}

export function createHookLanes<T>(options: HookLanesOptions<T>): HookLanes<T> {
  const { perHook, queuePerHook, run } = options;
  const now = options.now ?? (() => performance.now());
  const lanes = new Map<string, Lane<T>>();
  // Kept apart from lanes so that the estimate survives a lane emptying for a moment.
  const averages = new LRUCache<string, number>({ max: LANE_AVERAGES_MAX });
  let count = 0;
  let waiters: (() => void)[] = [];

  const notify = () => {
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };

  const start = (hookId: string, lane: Lane<T>, item: T) => {
    lane.running.add(item);
    const started = now();
    void run(hookId, item)
      .catch(() => {}) // run handles its own failures; a throw must not stall the lane
      .finally(() => {
        lane.running.delete(item);
        count -= 1;
        const took = now() - started;
        const previous = averages.get(hookId);
        averages.set(hookId, previous === undefined ? took : previous + LANE_EWMA_WEIGHT * (took - previous));
        const next = lane.queue.shift();
        if (next !== undefined) start(hookId, lane, next);
        else if (lane.running.size === 0) lanes.delete(hookId);
        notify();
      });
  };

  return {
    submit(hookId, item, maxQueued = queuePerHook) {
      let lane = lanes.get(hookId);
      if (!lane) {
        lane = { running: new Set(), queue: [] };
        lanes.set(hookId, lane);
      }
      if (lane.running.size < perHook) {
        count += 1;
        start(hookId, lane, item);
        return "started";
      }
      if (lane.queue.length < maxQueued) {
        count += 1;
        lane.queue.push(item);
        return "queued";
      }
      return "full";
    },
    held: () => [...lanes.values()].flatMap((lane) => [...lane.running, ...lane.queue]),
    heldCount: () => count,
    backlog: (hookId) => {
      const lane = lanes.get(hookId);
      return lane ? lane.running.size + lane.queue.length : 0;
    },
    averageMs: (hookId) => averages.get(hookId),
    drainQueued(hookId) {
      const drained: T[] = [];
      for (const [id, lane] of lanes) if (hookId === undefined || id === hookId) drained.push(...lane.queue.splice(0));
      count -= drained.length;
      notify();
      return drained;
    },
    async whenBelow(limit) {
      while (count >= limit) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    async idle() {
      while ([...lanes.values()].some((lane) => lane.running.size > 0)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
