// The chaos run: the split topology under steady load, with hooks registered; in turn each
// service is killed (SIGKILL) and started again, then NATS is killed and restarted, then
// PostgreSQL is shut down and restarted. Afterwards the deliveries are reconciled against what
// committed (reconcile.ts), per fault window and overall.
import { eventually, request } from "../support/http-client.js";
import { startReceiver } from "../support/receiver.js";
import { startLoad } from "./load.js";
import { deadLetters, deliveredChanges, keysOf, keysOfAnswered, readCommitted, stockProblems, tally, unsettledConsumers, type Tally } from "./reconcile.js";
import { SERVICES, startTopology, type ServiceName } from "./topology.js";

export const FAULTS = [...SERVICES.map((s) => `kill -9 ${s}`), "restart nats", "restart postgres"] as const;

export interface FaultReport extends Tally {
  fault: string;
  /** From the fault until every service answered /readyz 200 again. */
  recoverMs: number;
}

export interface ChaosReport {
  faults: FaultReport[];
  /** Every change that committed (also those whose answer was lost), against every delivery. */
  overall: Tally;
  answered: number;
  unanswered: number;
  refused: Record<string, number>;
  stockProblems: string[];
  unsettled: string[];
  deadLetters: number;
  /** Delivery of everything that committed, after the load stopped. */
  drainMs: number;
}

export interface ChaosOptions {
  /** Load before the first fault and after each one. */
  phaseMs: number;
  /** How long a restarted server stays down. */
  downMs?: number;
  drainTimeoutMs?: number;
  log?(line: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Orders' stock reconciler passes every 5 s over records older than STOCK_INTENT_MIN_AGE_MS (2 s here). */
const STOCK_SETTLE_TIMEOUT_MS = 30_000;

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const downMs = options.downMs ?? 1_000;
  log("starting the split topology (own NATS and PostgreSQL, one process per service)");
  const topology = await startTopology({
    env: {
      WEBHOOK_RETRY_SCHEDULE: "100ms,300ms,1s,2s,5s,10s",
      CONSUMER_ACK_WAIT_MS: "5000",
      WEBHOOK_TIMEOUT_MS: "5000",
      // A killed orders process's call to inventory ends within milliseconds here.
      STOCK_INTENT_MIN_AGE_MS: "2000",
    },
  });
  const receiver = await startReceiver();
  try {
    for (const on of ["order.created", "inventory.adjusted", "device.reading"]) {
      const hook = await request(`${topology.baseUrl}/hooks`, { token: topology.token, json: { name: `chaos ${on}`, url: receiver.url, on } });
      if (hook.status !== 201) throw new Error(`hook ${on}: ${hook.status} ${JSON.stringify(hook.body)}`);
    }
    const deviceId = "chaos-sensor";
    const load = await startLoad({
      baseUrl: topology.baseUrl,
      token: topology.token,
      databaseUrl: topology.env.databaseUrl,
      mqttPort: topology.mqttPort,
      deviceId,
    });
    const windows: { fault: string; from: number; recoverMs: number }[] = [];
    log(`load running; ${options.phaseMs} ms before the first fault and after each`);
    await sleep(options.phaseMs);
    for (const fault of FAULTS) {
      const from = Date.now();
      let recoverMs: number;
      if (fault.startsWith("kill -9 ")) {
        await topology.kill9(fault.slice("kill -9 ".length) as ServiceName);
        recoverMs = Date.now() - from + (await topology.allReady());
      } else {
        const server = fault === "restart nats" ? topology.nats : topology.postgres;
        // NATS is killed outright; PostgreSQL gets a fast shutdown (SIGINT): a SIGKILLed postmaster leaves its backends behind.
        await server.bounce(fault === "restart nats" ? "SIGKILL" : "SIGINT", downMs);
        recoverMs = Date.now() - from + (await topology.allReady());
      }
      windows.push({ fault, from, recoverMs });
      log(`${fault}: every service ready again after ${recoverMs} ms`);
      await sleep(options.phaseMs);
    }
    await load.stop();
    log(`load stopped: ${load.changes.length} changes answered, ${load.unanswered} requests without an answer`);

    // Everything that committed must arrive; the retries and redeliveries may take a while.
    const drainFrom = Date.now();
    const committed = await readCommitted(topology.env.databaseUrl, topology.nats.url, topology.env.topology.eventsStream, load.productId, deviceId);
    const committedKeys = keysOf(committed);
    await eventually(
      async () => {
        const lost = tally(committedKeys, deliveredChanges(receiver)).lost;
        return lost.length === 0 && (await unsettledConsumers(topology.nats.url, topology.env.streamPrefix)).length === 0 ? true : undefined;
      },
      options.drainTimeoutMs ?? 120_000,
      500,
    ).catch(() => log("drain timed out: the report shows what is missing"));
    const drainMs = Date.now() - drainFrom;

    const delivered = deliveredChanges(receiver);
    const answeredKeys = await keysOfAnswered(topology.env.databaseUrl, load.changes);
    const faults = windows.map((w, i) => {
      const until = windows[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      const within = new Set(load.changes.filter((c) => c.at >= w.from && c.at < until).map((c) => answeredKeys.get(c)!));
      return { fault: w.fault, recoverMs: w.recoverMs, ...tally([...within], delivered, within) };
    });
    // What was answered must have committed: an acknowledged change missing from the store is lost too.
    const answeredNotCommitted = [...answeredKeys.values()].filter((key) => !committedKeys.includes(key));
    const overall = tally(committedKeys, delivered);
    overall.lost.push(...answeredNotCommitted.map((key) => `${key} (acknowledged, not committed)`));
    await topology.allReady(10_000);
    return {
      faults,
      overall,
      answered: load.changes.length,
      unanswered: load.unanswered,
      refused: Object.fromEntries(load.refused),
      // An order status change killed between inventory and its commit is put right by orders'
      // stock reconciler once its record is STOCK_INTENT_MIN_AGE_MS old (no manual step).
      stockProblems: await eventually(async () => {
        const problems = await stockProblems(topology.env.databaseUrl, load.productId);
        return problems.length === 0 ? problems : undefined;
      }, STOCK_SETTLE_TIMEOUT_MS).catch(() => stockProblems(topology.env.databaseUrl, load.productId)),
      unsettled: await unsettledConsumers(topology.nats.url, topology.env.streamPrefix),
      deadLetters: await deadLetters(topology.env.databaseUrl),
      drainMs,
    };
  } finally {
    await receiver.close();
    await topology.stop();
  }
}

/** The report as a table (one line per fault) and the checks under it. */
export function formatReport(report: ChaosReport): string {
  const row = (cells: (string | number)[]) => cells.map((c, i) => String(c).padEnd(i === 0 ? 24 : 11)).join("");
  const lines = [row(["fault", "committed", "delivered", "duplicates", "lost", "phantoms", "recover ms"])];
  for (const f of report.faults) lines.push(row([f.fault, f.committed, f.delivered, f.duplicates, f.lost.length, f.phantoms.length, f.recoverMs]));
  const o = report.overall;
  lines.push(row(["all (from the store)", o.committed, o.delivered, o.duplicates, o.lost.length, o.phantoms.length, ""]));
  lines.push(
    `answered ${report.answered}, unanswered ${report.unanswered}, refused ${JSON.stringify(report.refused)}; drained in ${report.drainMs} ms`,
    `stock and reservations: ${report.stockProblems.length === 0 ? "consistent" : report.stockProblems.join("; ")}`,
    `unacknowledged messages: ${report.unsettled.length === 0 ? "none" : report.unsettled.join("; ")}`,
    `dead letters: ${report.deadLetters}`,
  );
  if (o.lost.length > 0) lines.push(`lost: ${o.lost.slice(0, 20).join(", ")}`);
  if (o.phantoms.length > 0) lines.push(`phantoms: ${o.phantoms.slice(0, 20).join(", ")}`);
  return lines.join("\n");
}

export function reportPassed(report: ChaosReport): boolean {
  return (
    report.overall.lost.length === 0 &&
    report.overall.phantoms.length === 0 &&
    report.faults.every((f) => f.lost.length === 0 && f.phantoms.length === 0) &&
    report.stockProblems.length === 0 &&
    report.unsettled.length === 0
  );
}
