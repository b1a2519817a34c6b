// A closed-loop HTTP load generator on undici: `concurrency` workers send requests back to back
// for `durationMs` and record each latency. Bounded in time; targets loopback only.
import { Pool } from "undici";

export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Every latency, ms, in ascending order. */
  latencies: number[];
  elapsedSeconds: number;
}

export interface LoadRequest {
  method: "POST" | "GET";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export async function runLoad(
  origin: string,
  next: (i: number) => LoadRequest,
  /**
   * `warmupMs`: requests begun in this time first are sent but neither counted nor timed;
   * `onMeasuring` is called when it ends (where a caller's own accounting starts).
   */
  options: { concurrency: number; durationMs: number; expectStatus: number; warmupMs?: number; onMeasuring?: () => void },
): Promise<LoadResult> {
  const host = new URL(origin).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1") throw new Error("load targets loopback only");
  const pool = new Pool(origin, { connections: options.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const started = performance.now() + (options.warmupMs ?? 0);
  const deadline = started + options.durationMs;
  if (options.onMeasuring) setTimeout(options.onMeasuring, options.warmupMs ?? 0);
  const worker = async () => {
    while (performance.now() < deadline) {
      const request = next(counter++);
      const t0 = performance.now();
      try {
        const response = await pool.request({ origin, method: request.method, path: request.path, headers: request.headers, body: request.body });
        await response.body.dump();
        if (t0 < started) continue;
        if (response.statusCode === options.expectStatus) latencies.push(performance.now() - t0);
        else errors += 1;
      } catch {
        if (t0 >= started) errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return summarize(latencies, errors, elapsed);
}

/** Several measurements of one subject as one: their requests over their time together. */
export function combineResults(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latencies);
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  return summarize(
    latencies,
    errors,
    results.reduce((sum, r) => sum + r.elapsedSeconds, 0),
  );
}

function summarize(latencies: number[], errors: number, elapsedSeconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN);
  return { requests: latencies.length, errors, perSecond: latencies.length / elapsedSeconds, p50Ms: at(0.5), p99Ms: at(0.99), latencies, elapsedSeconds };
}

export function formatResult(name: string, r: LoadResult): string {
  return `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms.toFixed(1).padStart(6)} ms   p99 ${r.p99Ms.toFixed(1).padStart(6)} ms   (${r.requests} ok, ${r.errors} errors)`;
}
