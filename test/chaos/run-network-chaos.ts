// The network chaos run: the split topology (each service its own process) with its nats-server
// and its PostgreSQL each in a network namespace behind a veth pair (network-faults.ts), under a
// bounded load (orders, stock adjustments, device readings) with webhook receivers. In turn, on
// the link to NATS and then on the link to PostgreSQL: 200 ms more per round trip, 5 % packet
// loss, a partition (every packet dropped) for `partitionMs`. Afterwards: everything that
// committed was delivered (lost 0), nothing was delivered that did not commit, duplicates are
// counted by event id; per fault, the answers the API gave and its longest request (a partition
// must be answered 503, not hang), and how long the services took to be ready again by themselves.
import { eventually, request } from "../support/http-client.js";
import { startReceiver } from "../support/receiver.js";
import { startLoad, type TimedRequest } from "./load.js";
import { removeStaleNamespaces, startNamespacedNats, startNamespacedPostgres, type FaultyServer, type LinkFault } from "./network-faults.js";
import { deadLetters, deliveredChanges, keysOf, keysOfAnswered, readCommitted, tally, unsettledConsumers, type Tally } from "./reconcile.js";
import { startTopology } from "./topology.js";

export interface NetworkFaultReport extends Tally {
  link: "nats" | "postgres";
  fault: LinkFault;
  durationMs: number;
  /** API requests begun during the fault, by answer ("200", "503", "none"…). */
  answers: Record<string, number>;
  /** The longest API request begun during the fault (ms). */
  longestMs: number;
  /** From the fault's end until every service answered /readyz 200 again. */
  recoverMs: number;
}

export interface NetworkChaosReport {
  latencyBy: string;
  faults: NetworkFaultReport[];
  overall: Tally;
  /** Deliveries of an event id beyond its first (at-least-once allows them; counted). */
  duplicateDeliveries: number;
  /** Changes that reached the receiver as more than one event (a change published twice): must be 0. */
  changesWithSeveralEvents: number;
  answered: number;
  unanswered: number;
  deadLetters: number;
  unsettled: string[];
  drainMs: number;
  totalMs: number;
}

export interface NetworkChaosOptions {
  /** Load before the first fault and after each one. */
  phaseMs: number;
  /** How long the latency and the loss last. */
  degradedMs: number;
  partitionMs: number;
  drainTimeoutMs?: number;
  log?(line: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAULT_KINDS: LinkFault[] = ["latency", "loss", "partition"];

export async function runNetworkChaos(options: NetworkChaosOptions): Promise<NetworkChaosReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  await removeStaleNamespaces();
  const nats = await startNamespacedNats(0);
  const postgres = await startNamespacedPostgres(1).catch(async (error) => {
    await nats.stop();
    throw error;
  });
  log(`NATS at ${nats.url} (${nats.namespace}), PostgreSQL at ${postgres.url} (${postgres.namespace}); latency by ${nats.latencyBy}`);
  const topology = await startTopology({
    servers: { nats, postgres },
    env: {
      WEBHOOK_RETRY_SCHEDULE: "100ms,300ms,1s,2s,5s,10s",
      CONSUMER_ACK_WAIT_MS: "5000",
      WEBHOOK_TIMEOUT_MS: "5000",
      STOCK_INTENT_MIN_AGE_MS: "2000",
    },
  }).catch(async (error) => {
    await nats.stop();
    await postgres.stop();
    throw error;
  });
  const receiver = await startReceiver();
  try {
    for (const on of ["order.created", "inventory.adjusted", "device.reading"]) {
      const hook = await request(`${topology.baseUrl}/hooks`, { token: topology.token, json: { name: `network chaos ${on}`, url: receiver.url, on } });
      if (hook.status !== 201) throw new Error(`hook ${on}: ${hook.status} ${JSON.stringify(hook.body)}`);
    }
    const deviceId = "network-chaos-sensor";
    const load = await startLoad({
      baseUrl: topology.baseUrl,
      token: topology.token,
      databaseUrl: topology.env.databaseUrl,
      mqttPort: topology.mqttPort,
      deviceId,
      paceMs: 50,
      requestTimeoutMs: 60_000,
    });
    log(`load running; ${options.phaseMs} ms before the first fault and after each`);
    await sleep(options.phaseMs);
    const windows: { link: "nats" | "postgres"; fault: LinkFault; from: number; until: number; recoverMs: number }[] = [];
    for (const [link, server] of [
      ["nats", nats],
      ["postgres", postgres],
    ] as ["nats" | "postgres", FaultyServer][]) {
      for (const fault of FAULT_KINDS) {
        const from = Date.now();
        await server.fault(fault);
        await sleep(fault === "partition" ? options.partitionMs : options.degradedMs);
        await server.fault(undefined);
        const until = Date.now();
        const recoverMs = await topology.allReady(120_000);
        windows.push({ link, fault, from, until, recoverMs });
        log(`${link} ${fault} for ${until - from} ms: every service ready ${recoverMs} ms after it ended`);
        await sleep(options.phaseMs);
      }
    }
    await load.stop();
    log(`load stopped: ${load.changes.length} changes answered, ${load.unanswered} requests without an answer`);

    const drainFrom = Date.now();
    const committed = await readCommitted(topology.env.databaseUrl, nats.url, topology.env.topology.eventsStream, load.productId, deviceId);
    const committedKeys = keysOf(committed);
    await eventually(
      async () => {
        const lost = tally(committedKeys, deliveredChanges(receiver)).lost;
        return lost.length === 0 && (await unsettledConsumers(nats.url, topology.env.streamPrefix)).length === 0 ? true : undefined;
      },
      options.drainTimeoutMs ?? 120_000,
      500,
    ).catch(() => log("drain timed out: the report shows what is missing"));
    const drainMs = Date.now() - drainFrom;

    const delivered = deliveredChanges(receiver);
    const answeredKeys = await keysOfAnswered(topology.env.databaseUrl, load.changes);
    const faults = windows.map((w, i): NetworkFaultReport => {
      const next = windows[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      const within = new Set(load.changes.filter((c) => c.at >= w.from && c.at < next).map((c) => answeredKeys.get(c)!));
      const requests = load.requests.filter((r) => r.at >= w.from && r.at < w.until);
      return {
        link: w.link,
        fault: w.fault,
        durationMs: w.until - w.from,
        answers: countAnswers(requests),
        longestMs: Math.max(0, ...requests.map((r) => r.ms)),
        recoverMs: w.recoverMs,
        ...tally([...within], delivered, within),
      };
    });
    const answeredNotCommitted = [...answeredKeys.values()].filter((key) => !committedKeys.includes(key));
    const overall = tally(committedKeys, delivered);
    overall.lost.push(...answeredNotCommitted.map((key) => `${key} (acknowledged, not committed)`));
    const byEventId = new Map<string, number>();
    for (const { json } of receiver.received) if (typeof json?.id === "string") byEventId.set(json.id, (byEventId.get(json.id) ?? 0) + 1);
    return {
      latencyBy: nats.latencyBy,
      faults,
      overall,
      duplicateDeliveries: [...byEventId.values()].reduce((sum, n) => sum + n - 1, 0),
      changesWithSeveralEvents: [...delivered.values()].filter((d) => d.events.size > 1).length,
      answered: load.changes.length,
      unanswered: load.unanswered,
      deadLetters: await deadLetters(topology.env.databaseUrl),
      unsettled: await unsettledConsumers(nats.url, topology.env.streamPrefix),
      drainMs,
      totalMs: Date.now() - started,
    };
  } finally {
    // A run that failed mid-fault heals the links first, or the cleanup would wait on them.
    await nats.fault(undefined).catch(() => {});
    await postgres.fault(undefined).catch(() => {});
    await receiver.close();
    await topology.stop(); // stops the namespaced servers and deletes their namespaces too
  }
}

function countAnswers(requests: TimedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) {
    const key = r.status === null ? "none" : String(r.status);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

export function formatNetworkReport(report: NetworkChaosReport): string {
  const row = (cells: (string | number)[]) => cells.map((c, i) => String(c).padEnd(i === 0 ? 20 : i === 7 ? 30 : 11)).join("");
  const lines = [
    `latency made by: ${report.latencyBy}`,
    row(["fault", "ms", "committed", "delivered", "dupl.", "lost", "longest ms", "answers", "ready after ms"]),
  ];
  for (const f of report.faults) {
    const answers = Object.entries(f.answers)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ");
    lines.push(row([`${f.link} ${f.fault}`, f.durationMs, f.committed, f.delivered, f.duplicates, f.lost.length, f.longestMs, answers, f.recoverMs]));
  }
  const o = report.overall;
  lines.push(
    `all (from the store): committed ${o.committed}, delivered ${o.delivered}, lost ${o.lost.length}, phantoms ${o.phantoms.length}`,
    `duplicate deliveries by event id: ${report.duplicateDeliveries}; changes delivered as more than one event: ${report.changesWithSeveralEvents}`,
    `answered ${report.answered}, unanswered ${report.unanswered}; drained in ${report.drainMs} ms; whole run ${report.totalMs} ms`,
    `unacknowledged messages: ${report.unsettled.length === 0 ? "none" : report.unsettled.join("; ")}`,
    `dead letters: ${report.deadLetters}`,
  );
  if (o.lost.length > 0) lines.push(`lost: ${o.lost.slice(0, 20).join(", ")}`);
  if (o.phantoms.length > 0) lines.push(`phantoms: ${o.phantoms.slice(0, 20).join(", ")}`);
  return lines.join("\n");
}

/** The longest request a partition may take: the API must answer (503) rather than hang. */
export const PARTITION_LONGEST_MS = 15_000;

export function networkReportPassed(report: NetworkChaosReport): boolean {
  return (
    report.overall.lost.length === 0 &&
    report.overall.phantoms.length === 0 &&
    report.changesWithSeveralEvents === 0 &&
    report.unsettled.length === 0 &&
    report.faults.every((f) => f.lost.length === 0 && f.phantoms.length === 0 && (f.fault !== "partition" || f.longestMs <= PARTITION_LONGEST_MS))
  );
}
