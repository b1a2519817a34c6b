// Bounded concurrency per hook: each hook has a lane with at most `perHook` deliveries running
// and a queue behind them. A hook whose receiver hangs fills only its own lane; what the caller
// does not let a lane queue is handed back to it (to return to JetStream for later) instead of
// waiting in front of other hooks' deliveries.
import { LRUCache } from "lru-cache";
import { SlotSet } from "@waybill/platform/slot-set.js";

export const LANE_EWMA_WEIGHT = 0.2;
/** Runs a lane must have finished before its average counts (the first ones include warm-up). */
export const LANE_MIN_SAMPLES = 8;
/** Hooks whose run-time estimate is remembered after their lane empties. */
export const LANE_AVERAGES_MAX = 10_000;

export interface HookLanesOptions<T> {
  perHook: number;
  /** Queue places per hook unless submit() says otherwise. */
  queuePerHook: number;
  /**
   * Starts an item; it holds its lane place until `place.free()` is called (a throw frees it). A
   * callback object rather than a promise to wait for: per delivery, that promise and its
   * callbacks were work of their own on the dispatcher's hottest path.
   */
  run(hookId: string, item: T, place: LanePlace): void;
  now?: () => number;
}

export type Submission = "started" | "queued" | "full";

/** A running item's place in its lane, freed once (later calls do nothing). */
export interface LanePlace {
  free(): void;
}

export interface HookLanes<T> {
  submit(hookId: string, item: T, maxQueued?: number): Submission;
  /** Items running or queued in every lane (for ack heartbeats). */
  held(): T[];
  heldCount(): number;
  /** Running + queued items of one hook. */
  backlog(hookId: string): number;
  /** Hooks with something running or queued. */
  activeHooks(): number;
  /** Moving average of one hook's run times in ms (undefined before LANE_MIN_SAMPLES finished runs). */
  averageMs(hookId: string): number | undefined;
  /**
   * How long one hook's lane has run without finishing anything, in ms: since its last finish, or
   * since it began when nothing has finished yet (0 when nothing runs).
   */
  stalledMs(hookId: string): number;
  /** Removes and returns every queued (not yet running) item, of one hook or of all. */
  drainQueued(hookId?: string): T[];
  /** Removes and returns the queued items of one hook beyond the first `keep` (the newest go). */
  shed(hookId: string, keep: number): T[];
  /** Hooks with something queued (not only running). */
  hooksWithQueue(): string[];
  /** Resolves once fewer than `count` items are held. */
  whenBelow(count: number): Promise<void>;
  /** Resolves once nothing runs. */
  idle(): Promise<void>;
}

interface Lane<T> {
  /** Running items (slots, not a Set: see slot-set.ts). */
  running: SlotSet<T>;
  /** Started items' slots (before `head`) are emptied; those from `head` on wait. */
  queue: (T | undefined)[];
  /** Index of the queue's first item (shifting a long array on every start would copy it). */
  head: number;
  /** When it last finished a run (when it began, until then). */
  progressAt: number;
}

const queued = <T>(lane: Lane<T>) => lane.queue.length - lane.head;

/** A place taken in a lane by a running item: what its lane needs to move on once it is freed. */
class Place<T> implements LanePlace {
  slot = -1;
  /** Whether `run` has returned: a place freed before that moves its lane on from a fresh stack. */
  returned = false;
  #taken = true;
  readonly hookId: string;
  readonly lane: Lane<T>;
  readonly started: number;
  readonly #finish: (place: Place<T>) => void;

  constructor(hookId: string, lane: Lane<T>, started: number, finish: (place: Place<T>) => void) {
    this.hookId = hookId;
    this.lane = lane;
    this.started = started;
    this.#finish = finish;
  }

  free(): void {
    if (!this.#taken) return;
    this.#taken = false;
    // Freed within `run`, the next item would start within this one's frames, and a long queue of
    // items that each end at once (an open breaker) would nest as deep as the queue is long.
    if (this.returned) this.#finish(this);
    else queueMicrotask(() => this.#finish(this));
  }
}

export function createHookLanes<T>(options: HookLanesOptions<T>): HookLanes<T> {
  const { perHook, queuePerHook, run } = options;
  const now = options.now ?? (() => performance.now());
  const lanes = new Map<string, Lane<T>>();
  // Kept apart from lanes so that the estimate survives a lane emptying for a moment.
  const averages = new LRUCache<string, { ms: number; samples: number }>({ max: LANE_AVERAGES_MAX });
  let count = 0;
  let waiters: (() => void)[] = [];

  const notify = () => {
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };

  const takeNext = (lane: Lane<T>): T | undefined => {
    if (queued(lane) === 0) return undefined;
    const item = lane.queue[lane.head];
    // The slot lets go of what it held: an item taken but left in the array until the next
    // compaction stayed reachable after it finished, with its event message and event (a heap
    // snapshot under load: 3,628 deliveries held by lane queues and 907 events in hand, more than
    // the 512 the consumer takes at once; with this change, at another moment, 391 and 105).
    lane.queue[lane.head++] = undefined;
    if (lane.head > 1024 && lane.head * 2 > lane.queue.length) {
      // The old array is emptied too: left as it was, it would hold the items still waiting when it
      // was replaced for as long as it stays in the heap, long after they are done.
      const old = lane.queue;
      lane.queue = old.slice(lane.head);
      old.length = 0;
      lane.head = 0;
    }
    return item;
  };

  /** A run has freed its place: its time counts toward its hook's average, and the lane's next item starts. */
  const finished = (place: Place<T>) => {
    const { hookId, lane } = place;
    lane.running.delete(place.slot);
    count -= 1;
    lane.progressAt = now();
    const took = lane.progressAt - place.started;
    const average = averages.get(hookId); // updated in place: this runs once per delivery
    if (average === undefined) averages.set(hookId, { ms: took, samples: 1 });
    else {
      average.ms += LANE_EWMA_WEIGHT * (took - average.ms);
      average.samples += 1;
    }
    const next = takeNext(lane);
    if (next !== undefined) start(hookId, lane, next);
    else if (lane.running.size === 0) lanes.delete(hookId);
    notify();
  };

  const start = (hookId: string, lane: Lane<T>, item: T) => {
    const place = new Place(hookId, lane, now(), finished);
    place.slot = lane.running.add(item);
    try {
      run(hookId, item, place);
    } catch {
      place.free(); // a throw must not stall the lane
    } finally {
      place.returned = true;
    }
  };

  const remove = (lane: Lane<T>, from: number): T[] => {
    const removed = lane.queue.splice(from) as T[]; // from `head` on: all waiting
    count -= removed.length;
    notify();
    return removed;
  };

  return {
    submit(hookId, item, maxQueued = queuePerHook) {
      let lane = lanes.get(hookId);
      if (!lane) {
        lane = { running: new SlotSet<T>(), queue: [], head: 0, progressAt: now() };
        lanes.set(hookId, lane);
      }
      if (lane.running.size < perHook) {
        count += 1;
        start(hookId, lane, item);
        return "started";
      }
      if (queued(lane) < maxQueued) {
        count += 1;
        lane.queue.push(item);
        return "queued";
      }
      return "full";
    },
    held: () => [...lanes.values()].flatMap((lane) => [...lane.running.values(), ...(lane.queue.slice(lane.head) as T[])]),
    heldCount: () => count,
    backlog: (hookId) => {
      const lane = lanes.get(hookId);
      return lane ? lane.running.size + queued(lane) : 0;
    },
    activeHooks: () => lanes.size,
    averageMs(hookId) {
      const average = averages.get(hookId);
      return average && average.samples >= LANE_MIN_SAMPLES ? average.ms : undefined;
    },
    stalledMs(hookId) {
      const lane = lanes.get(hookId);
      if (!lane || lane.running.size === 0) return 0;
      return now() - lane.progressAt;
    },
    drainQueued(hookId) {
      const drained: T[] = [];
      for (const [id, lane] of lanes) if (hookId === undefined || id === hookId) drained.push(...remove(lane, lane.head));
      return drained;
    },
    shed(hookId, keep) {
      const lane = lanes.get(hookId);
      if (!lane || queued(lane) <= keep) return [];
      return remove(lane, lane.head + keep);
    },
    hooksWithQueue: () => [...lanes].filter(([, lane]) => queued(lane) > 0).map(([id]) => id),
    async whenBelow(limit) {
      while (count >= limit) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    async idle() {
      while ([...lanes.values()].some((lane) => lane.running.size > 0)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
