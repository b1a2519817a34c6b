// Where a benchmark's CPU goes: CPU seconds used by each process tree of the system under test,
// PostgreSQL and nats-server between two snapshots, read from /proc (Linux; elsewhere the
// accounting is left out). On a machine where every process shares the same cores, this is
// what bounds throughput: the rate cannot exceed cores / (CPU seconds per request).
import { readdirSync, readFileSync } from "node:fs";

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** user + system CPU seconds */
  cpu: number;
}

const TICKS_PER_SECOND = 100;

function readProcs(): ProcStat[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const procs: ProcStat[] = [];
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // comm may hold spaces and parentheses: it ends at the last ")".
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      procs.push({ pid: Number(entry), ppid: Number(fields[1]), comm, cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
    } catch {
      // The process ended while we read.
    }
  }
  return procs;
}

/** CPU seconds so far of each process, with the group it counts in. */
export type CpuSnapshot = Map<number, { group: string; cpu: number }>;

/**
 * Not a process: the machine's context switches so far (thousands, /proc/stat `ctxt`), kept in the
 * snapshot under this group and pid so that it is taken and compared with the CPU. Printed apart:
 * how often the processes hand the cores to each other per request, which a topology of more
 * processes could pay on every hop (for orders it does not: docs/benchmarks.md).
 */
const CONTEXT_SWITCHES = "context switches";
const CONTEXT_SWITCHES_PID = -1;

function readContextSwitches(): number | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8")
      .split("\n")
      .find((l) => l.startsWith("ctxt "));
    return line === undefined ? undefined : Number(line.slice(5)) / 1000;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds so far of each process: each named process with its descendants, then every
 * `postgres` and `nats-server` process on the machine. A process already counted in a named
 * tree is not counted again.
 */
export function snapshotCpu(roots: Record<string, number>): CpuSnapshot | undefined {
  const procs = readProcs();
  if (!procs) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const snapshot: CpuSnapshot = new Map();
  for (const [group, root] of Object.entries(roots)) {
    const stack = byPid.has(root) ? [byPid.get(root)!] : [];
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (snapshot.has(p.pid)) continue;
      snapshot.set(p.pid, { group, cpu: p.cpu });
      stack.push(...(children.get(p.pid) ?? []));
    }
  }
  for (const [group, comm] of [
    ["postgresql", "postgres"],
    ["nats-server", "nats-server"],
    ["redis-server", "redis-server"],
  ] as const) {
    for (const p of procs) if (p.comm === comm && !snapshot.has(p.pid)) snapshot.set(p.pid, { group, cpu: p.cpu });
  }
  const switches = readContextSwitches();
  if (switches !== undefined) snapshot.set(CONTEXT_SWITCHES_PID, { group: CONTEXT_SWITCHES, cpu: switches });
  return snapshot;
}

/** CPU seconds each group used between two snapshots (undefined: not measured). */
export type CpuUsed = Map<string, number> | undefined;

/**
 * CPU seconds of each group between two snapshots. Compared process by process: one that started
 * meanwhile counts from zero; one that ended meanwhile is missing (a short-lived process's CPU is
 * lost, never counted negative).
 */
export function cpuBetween(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): CpuUsed {
  if (!before || !after) return undefined;
  const groups = new Map<string, number>();
  for (const [pid, { group, cpu }] of after) groups.set(group, (groups.get(group) ?? 0) + cpu - (before.get(pid)?.cpu ?? 0));
  return groups;
}

/** The CPU of several measurements of one subject, added up. */
export function addCpu(total: CpuUsed, more: CpuUsed): CpuUsed {
  if (!more) return total;
  const sum = new Map(total ?? []);
  for (const [group, seconds] of more) sum.set(group, (sum.get(group) ?? 0) + seconds);
  return sum;
}

/** One line: CPU milliseconds per request of each group, and their sum. */
export function formatCpuUsed(used: CpuUsed, requests: number, unit = "request"): string {
  if (!used || requests === 0) return `  CPU per ${unit}: not measured (needs /proc)`;
  const parts: string[] = [];
  let sum = 0;
  for (const [name, seconds] of used) {
    if (name === CONTEXT_SWITCHES) continue;
    const ms = (seconds * 1000) / requests;
    sum += ms;
    if (ms >= 0.0005) parts.push(`${name} ${ms.toFixed(3)}`);
  }
  // Three decimals: the changes these lines judge move a process by a few microseconds.
  const switches = used.get(CONTEXT_SWITCHES);
  const perRequest = switches === undefined ? "" : `; context switches per ${unit} (whole machine) ${((switches * 1000) / requests).toFixed(1)}`;
  return `  CPU ms per ${unit}: ${parts.join(", ")}; total ${sum.toFixed(3)}${perRequest}`;
}

/** One line: CPU milliseconds per request of each group between two snapshots, and their sum. */
export function formatCpuPerRequest(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, requests: number, unit = "request"): string {
  return formatCpuUsed(cpuBetween(before, after), requests, unit);
}

/** User + system CPU of one process so far, in milliseconds (clock ticks of 10 ms): a PostgreSQL backend, say. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * (1000 / TICKS_PER_SECOND);
}
