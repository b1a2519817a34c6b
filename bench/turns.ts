// Subjects measured side by side in short turns rather than one after another for their whole
// time: this machine's speed drifts over tens of seconds (the same subject's CPU per request moved
// by a quarter between runs), and subjects that take turns meet the same drift.
import { addCpu, cpuBetween, formatCpuUsed, snapshotCpu, type CpuSnapshot, type CpuUsed } from "./cpu-accounting.js";
import { combineResults, runLoad, type LoadRequest, type LoadResult } from "./load.js";
import { settleDatabase } from "./settle-database.js";

/** Each subject's time is taken in turns of this long. */
export const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
/**
 * Each turn first runs this long unmeasured: a subject that has waited for the others' turns
 * starts with all its clients' requests at once and cold caches; counted, those first requests
 * put every subject's p99 about 1.8 times higher (one run each way, 2026-11-26), and whatever work
 * the previous turn left running (its events still being consumed) would fall into this one.
 */
export const SLICE_WARMUP_MS = 500;

export interface Subject {
  name: string;
  origin: string;
  request: (i: number) => LoadRequest;
  /** The database its turns start from vacuumed (see settle-database.ts). */
  databaseUrl: string;
}

export interface Measured {
  result: LoadResult;
  /** "CPU ms per request: …", over its turns. */
  cpu: string;
}

/**
 * Measures each subject for `seconds` in all, in turns of SLICE_SECONDS in an order that rotates
 * each round, and the CPU of `roots` (and PostgreSQL, nats-server) during its turns.
 */
export async function measureInTurns(
  subjects: Subject[],
  options: { concurrency: number; seconds: number; expectStatus: number; roots: Record<string, number> },
): Promise<Measured[]> {
  const rounds = Math.max(1, Math.round(options.seconds / SLICE_SECONDS));
  const slices = subjects.map(() => ({ results: [] as LoadResult[], cpu: undefined as CpuUsed }));
  for (const databaseUrl of new Set(subjects.map((s) => s.databaseUrl))) await settleDatabase(databaseUrl);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < subjects.length; turn++) {
      const i = (round + turn) % subjects.length;
      await settleDatabase(subjects[i].databaseUrl, { checkpoint: false });
      let before: CpuSnapshot | undefined;
      const onMeasuring = () => (before = snapshotCpu(options.roots));
      const slice = {
        concurrency: options.concurrency,
        expectStatus: options.expectStatus,
        durationMs: SLICE_SECONDS * 1000,
        warmupMs: SLICE_WARMUP_MS,
        onMeasuring,
      };
      slices[i].results.push(await runLoad(subjects[i].origin, subjects[i].request, slice));
      slices[i].cpu = addCpu(slices[i].cpu, cpuBetween(before, snapshotCpu(options.roots)));
    }
  }
  return slices.map(({ results, cpu }) => {
    const result = combineResults(results);
    return { result, cpu: formatCpuUsed(cpu, result.requests) };
  });
}
