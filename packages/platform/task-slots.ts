// A bounded number of tasks in flight, waited for without touching the others. The consumer loop
// used to wait with Promise.race over the set of tasks in flight: each wait attached a reaction to
// every one of them (hundreds in the gateway's readings consumer) and built a promise over them
// all, so each task cost in proportion to the tasks in flight. Here a task that ends wakes the
// waiter and the count is a number: the cost per task is the same however many are in flight.

export interface TaskSlots {
  /** Tasks started and not yet ended. */
  readonly inFlight: number;
  /** Starts `task` in a slot, after waiting for one to be free. */
  run(task: () => Promise<void>): Promise<void>;
  /** Resolves when every task started has ended. */
  drained(): Promise<void>;
}

export function createTaskSlots(limit: number): TaskSlots {
  let inFlight = 0;
  const waiting: (() => void)[] = []; // callers of run() waiting for a slot (a consumer's loop: one)
  let idle: (() => void) | undefined;
  const end = () => {
    inFlight--;
    waiting.shift()?.();
    if (inFlight === 0) idle?.();
  };
  return {
    get inFlight() {
      return inFlight;
    },
    async run(task) {
      while (inFlight >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight++;
      void task().then(end, end);
    },
    drained() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const previous = idle;
        idle = () => {
          idle = undefined;
          previous?.();
          resolve();
        };
      });
    },
  };
}
