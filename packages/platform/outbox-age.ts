// How long the oldest row has waited in a service's outbox: rows leave it once JetStream has
// them, so a growing age means events are not reaching the bus (NATS away, the relay failing).
// Sampled on a timer and kept, so a scrape never waits on the database.
import { Gauge, type Registry } from "prom-client";
import type { Pool } from "./db.js";

export const OUTBOX_OLDEST_AGE_METRIC = "waybill_outbox_oldest_age_seconds";
export const OUTBOX_AGE_SAMPLE_INTERVAL_MS = 10_000;

/** Starts sampling; the returned function stops it. */
export function startOutboxAgeGauge(pool: Pool, registry: Registry, intervalMs = OUTBOX_AGE_SAMPLE_INTERVAL_MS): () => void {
  const gauge = new Gauge({
    name: OUTBOX_OLDEST_AGE_METRIC,
    help: "Seconds the oldest outbox row has waited to be published (0 when the outbox is empty); sampled every 10 s",
    registers: [registry],
  });
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    try {
      const { rows } = await pool.query<{ age: number | null }>("SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM outbox");
      gauge.set(Math.max(0, rows[0]?.age ?? 0));
    } catch {
      // The database is away: /readyz and waybill_dependency_up say so; keep the last value.
    } finally {
      sampling = false;
    }
  };
  void sample();
  const timer = setInterval(() => void sample(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
