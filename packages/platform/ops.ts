// /healthz, /readyz and /metrics: every service has them, on its own ops port. Liveness says the
// process runs; readiness reports the dependencies from a cache that background checks keep
// fresh, so a probe never waits on a slow backend and never runs checks in series.
import http from "node:http";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { DEFAULT_READINESS_CHECK_INTERVAL_MS, DEFAULT_READINESS_CHECK_TIMEOUT_MS } from "./config.js";

export type ReadinessCheck = () => Promise<void>;

const PENDING = "pending";
/** 1 while a dependency's last background check passed, 0 otherwise (gating or informational alike). */
export const DEPENDENCY_UP_METRIC = "waybill_dependency_up";

export interface OpsOptions {
  /** Dependencies this pod cannot serve without: any failing makes /readyz 503. */
  checks?: Record<string, ReadinessCheck>;
  /**
   * Dependencies reported in /readyz but not gating it: a backend that every replica shares is
   * down for all of them alike, and taking this pod out of rotation would not help.
   */
  informational?: Record<string, ReadinessCheck>;
  intervalMs?: number;
  timeoutMs?: number;
}

export interface Ops {
  registry: Registry;
  /** Answers an ops path, or returns undefined when the path is not an ops path. */
  answer(path: string): Promise<{ status: number; contentType: string; body: string } | undefined>;
  /** Settles once every check has answered (or timed out) once, so a fresh pod reports real results. */
  firstRound: Promise<void>;
  /**
   * Runs every dependency check now (one still running from before is left to finish), for a
   * service whose start-up work is done: /readyz need not wait for the next interval.
   */
  checkNow(): Promise<void>;
  /** Set while draining, so that load balancers stop sending work before the process exits; stops the checks. */
  setDraining(): void;
  /**
   * Adds a readiness check of this process's own state (a part started after the ops, such as a
   * consumer's progress). It runs on every /readyz, so it must be cheap and never wait on another
   * server.
   */
  addCheck(name: string, check: ReadinessCheck): void;
}

export function createOps(service: string, options: OpsOptions = {}): Ops {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const required = new Set(Object.keys(options.checks ?? {}));
  const ownState = new Map<string, ReadinessCheck>();
  const results = new Map<string, string>();
  const timeoutMs = options.timeoutMs ?? DEFAULT_READINESS_CHECK_TIMEOUT_MS;
  const timers: NodeJS.Timeout[] = [];
  const runs: (() => Promise<void>)[] = [];
  const up = new Gauge({
    name: DEPENDENCY_UP_METRIC,
    help: "1 while the dependency's last readiness check passed",
    labelNames: ["dependency"],
    registers: [registry],
  });
  let draining = false;
  // Each dependency on its own timer: a slow one delays only its own next result.
  const schedule = (name: string, check: ReadinessCheck): Promise<void> => {
    results.set(name, PENDING);
    up.set({ dependency: name }, 0);
    let running = false;
    const run = (): Promise<void> => {
      if (running || draining) return Promise.resolve();
      // A check that hangs past its timeout is reported failed but not started again until it
      // settles, so hung checks never pile up.
      running = true;
      const settled = Promise.resolve().then(check);
      settled.then(
        () => (running = false),
        () => (running = false),
      );
      return withTimeout(settled, timeoutMs).then(
        () => {
          results.set(name, "ok");
          up.set({ dependency: name }, 1);
        },
        (error: Error) => {
          results.set(name, error?.message || "failed");
          up.set({ dependency: name }, 0);
        },
      );
    };
    const timer = setInterval(run, options.intervalMs ?? DEFAULT_READINESS_CHECK_INTERVAL_MS);
    timer.unref();
    timers.push(timer);
    runs.push(run);
    return run();
  };
  const all = { ...options.checks, ...options.informational };
  const firsts = Object.entries(all).map(([name, check]) => schedule(name, check));
  return {
    registry,
    firstRound: Promise.all(firsts).then(() => undefined),
    checkNow: () => Promise.all(runs.map((run) => run())).then(() => undefined),
    setDraining: () => {
      draining = true;
      for (const timer of timers) clearInterval(timer);
    },
    addCheck: (name, check) => {
      ownState.set(name, check);
    },
    async answer(path) {
      if (path === "/healthz") return json(200, { status: "ok", service });
      if (path === "/metrics") return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
      if (path !== "/readyz") return undefined;
      if (draining) return json(503, { status: "draining", service });
      const own = await Promise.all(
        [...ownState].map(([name, check]) =>
          withTimeout(Promise.resolve().then(check), timeoutMs).then(
            () => [name, "ok"] as const,
            (error: Error) => [name, error?.message || "failed"] as const,
          ),
        ),
      );
      const checks = { ...Object.fromEntries(results), ...Object.fromEntries(own) };
      const ready = [...required].every((name) => results.get(name) === "ok") && own.every(([, result]) => result === "ok");
      return json(ready ? 200 : 503, { status: ready ? "ready" : "not ready", service, checks });
    },
  };
}

function withTimeout(settled: Promise<void>, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    settled.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

function json(status: number, body: unknown) {
  return { status, contentType: "application/json", body: JSON.stringify(body) };
}

export interface OpsServerHandle {
  port: number;
  stop(): Promise<void>;
}

export async function startOpsServer(ops: Ops, host: string, port: number): Promise<OpsServerHandle> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    ops.answer(path).then(
      (answer) => {
        if (!answer || req.method !== "GET") {
          res.writeHead(404, { "content-type": "application/json" }).end('{"status":"not found"}');
          return;
        }
        res.writeHead(answer.status, { "content-type": answer.contentType }).end(answer.body);
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
