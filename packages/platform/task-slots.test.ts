import { describe, expect, it } from "vitest";
import { createTaskSlots } from "./task-slots.js";

const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("task slots", () => {
  it("start no more than the limit at once, and the next as soon as one ends (even by failing)", async () => {
    const slots = createTaskSlots(2);
    const tasks = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const start = (i: number) => () => {
      started.push(i);
      return tasks[i].promise;
    };
    await slots.run(start(0));
    await slots.run(start(1));
    const third = slots.run(start(2));
    await turn();
    expect([started, slots.inFlight]).toEqual([[0, 1], 2]);
    tasks[1].reject(new Error("failed"));
    await third;
    expect([started, slots.inFlight]).toEqual([[0, 1, 2], 2]);
  });

  it("drained resolves once every task started has ended", async () => {
    const slots = createTaskSlots(4);
    await slots.drained(); // none started: at once
    const tasks = [deferred(), deferred()];
    for (const task of tasks) await slots.run(() => task.promise);
    let drained = false;
    const waiting = slots.drained().then(() => (drained = true));
    tasks[0].resolve();
    await turn();
    expect(drained).toBe(false);
    tasks[1].resolve();
    await waiting;
    expect([drained, slots.inFlight]).toEqual([true, 0]);
  });
});
