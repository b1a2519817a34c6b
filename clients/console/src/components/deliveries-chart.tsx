// Deliveries succeeded and failed per hour over the last 24 h, drawn with uPlot (small, canvas).
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface HourlyOutcomes {
  hours: number[];
  succeeded: number[];
  failed: number[];
}

/** Buckets executions by the hour they ran in, the last 24 hours up to `now`. */
export function hourlyOutcomes(executions: { requestedAt: string; outcome: string }[], now: number): HourlyOutcomes {
  const HOUR = 3_600_000;
  const last = Math.floor(now / HOUR) * HOUR;
  const hours = Array.from({ length: 24 }, (_, i) => (last - (23 - i) * HOUR) / 1000);
  const succeeded = new Array<number>(24).fill(0);
  const failed = new Array<number>(24).fill(0);
  for (const e of executions) {
    const slot = 23 - Math.floor((last - Math.floor(Date.parse(e.requestedAt) / HOUR) * HOUR) / HOUR);
    if (slot < 0 || slot > 23) continue;
    (e.outcome === "succeeded" ? succeeded : failed)[slot] += 1;
  }
  return { hours, succeeded, failed };
}

export function DeliveriesChart({ series }: { series: HourlyOutcomes }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const width = Math.max(280, box.current.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [{}, { label: "Succeeded", stroke: "#1d7a46", width: 2 }, { label: "Failed", stroke: "#b3261e", width: 2 }],
        axes: [{}, { label: "Deliveries" }],
      },
      [series.hours, series.succeeded, series.failed],
      box.current,
    );
    return () => plot.destroy();
  }, [series]);
  const total = series.succeeded.reduce((a, b) => a + b, 0) + series.failed.reduce((a, b) => a + b, 0);
  return (
    <figure>
      <div
        ref={box}
        role="img"
        aria-label={`Chart of deliveries per hour: ${series.succeeded.reduce((a, b) => a + b, 0)} succeeded, ${series.failed.reduce((a, b) => a + b, 0)} failed`}
      />
      <figcaption>{total === 0 ? "No deliveries in the last 24 hours." : `${total} deliveries in the last 24 hours.`}</figcaption>
    </figure>
  );
}
