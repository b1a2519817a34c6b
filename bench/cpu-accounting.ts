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

export type CpuSnapshot = Map<string, number>;

/**
 * CPU seconds so far per group: each named process with its descendants, then every
 * `postgres` and `nats-server` process on the machine. A process already counted in a named
 * tree is not counted again.
 */
export function snapshotCpu(roots: Record<string, number>): CpuSnapshot | undefined {
  const procs = readProcs();
  if (!procs) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const counted = new Set<number>();
  const snapshot: CpuSnapshot = new Map();
  for (const [name, root] of Object.entries(roots)) {
    let total = 0;
    const stack = byPid.has(root) ? [byPid.get(root)!] : [];
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (counted.has(p.pid)) continue;
      counted.add(p.pid);
      total += p.cpu;
      stack.push(...(children.get(p.pid) ?? []));
    }
    snapshot.set(name, total);
  }
  for (const [group, comm] of [["postgresql", "postgres"], ["nats-server", "nats-server"]] as const) {
    snapshot.set(group, procs.filter((p) => p.comm === comm && !counted.has(p.pid)).reduce((sum, p) => sum + p.cpu, 0));
  }
  return snapshot;
}

/** One line: CPU milliseconds per request of each group between two snapshots, and their sum. */
export function formatCpuPerRequest(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined, requests: number): string {
  if (!before || !after || requests === 0) return "  CPU per request: not measured (needs /proc)";
  const parts: string[] = [];
  let sum = 0;
  for (const [name, end] of after) {
    const ms = ((end - (before.get(name) ?? 0)) * 1000) / requests;
    sum += ms;
    if (ms >= 0.005) parts.push(`${name} ${ms.toFixed(2)}`);
  }
  return `  CPU ms per request: ${parts.join(", ")}; total ${sum.toFixed(2)}`;
}
