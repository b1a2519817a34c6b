// A closed-loop HTTP load generator on undici: `concurrency` workers send requests back to back
// for `durationMs` and record each latency. Bounded in time; targets loopback only.
import { Pool } from "undici";

export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
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
  options: { concurrency: number; durationMs: number; expectStatus: number },
): Promise<LoadResult> {
  const host = new URL(origin).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1") throw new Error("load targets loopback only");
  const pool = new Pool(origin, { connections: options.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const request = next(counter++);
      const t0 = performance.now();
      try {
        const response = await pool.request({ origin, method: request.method, path: request.path, headers: request.headers, body: request.body });
        await response.body.dump();
        if (response.statusCode === options.expectStatus) latencies.push(performance.now() - t0);
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN);
  return { requests: latencies.length, errors, perSecond: latencies.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function formatResult(name: string, r: LoadResult): string {
  return `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms.toFixed(1).padStart(6)} ms   p99 ${r.p99Ms.toFixed(1).padStart(6)} ms   (${r.requests} ok, ${r.errors} errors)`;
}
