// Long-running commands (listen, events tail, executions --follow) end on Ctrl-C or SIGTERM with
// exit 0: the signal aborts their work instead of killing the process mid-line.

export interface StopSignal {
  signal: AbortSignal;
  /** Removes the handlers (call when the command ends). */
  release(): void;
}

/** Installs the handlers now: before anything tells the user to press Ctrl-C. */
export function stopOnSignals(): StopSignal {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: stop.signal,
    release() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Runs `tick` every `intervalMs` until `stop` fires; a failing tick ends it with that error. */
export async function untilStopped(stop: StopSignal, intervalMs: number, tick: () => Promise<void>): Promise<void> {
  try {
    while (!stop.signal.aborted) {
      await sleep(intervalMs, stop.signal);
      if (stop.signal.aborted) break;
      await tick();
    }
  } finally {
    stop.release();
  }
}
