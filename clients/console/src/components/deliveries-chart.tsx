// Deliveries succeeded and failed per hour over the last 24 h: stacked SVG bars (no inline
// styles), a legend with the totals and the success rate, and the values of the hour under the
// pointer or keyboard focus.
import { useState } from "react";

export interface HourlyOutcomes {
  /** Start of each hour, ms since the epoch, oldest first. */
  hours: number[];
  succeeded: number[];
  failed: number[];
}

const HOUR = 3_600_000;

/** Buckets executions by the hour they ran in, the last 24 hours up to `now`. */
export function hourlyOutcomes(executions: { requestedAt: string; outcome: string }[], now: number): HourlyOutcomes {
  const last = Math.floor(now / HOUR) * HOUR;
  const hours = Array.from({ length: 24 }, (_, i) => last - (23 - i) * HOUR);
  const succeeded = new Array<number>(24).fill(0);
  const failed = new Array<number>(24).fill(0);
  for (const e of executions) {
    const slot = 23 - (last - Math.floor(Date.parse(e.requestedAt) / HOUR) * HOUR) / HOUR;
    if (!(slot >= 0 && slot <= 23)) continue;
    (e.outcome === "succeeded" ? succeeded : failed)[slot] += 1;
  }
  return { hours, succeeded, failed };
}

const hourLabel = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

export function DeliveriesChart({ series }: { series: HourlyOutcomes }) {
  const [current, setCurrent] = useState<number>();
  const ok = series.succeeded.reduce((a, b) => a + b, 0);
  const bad = series.failed.reduce((a, b) => a + b, 0);
  const total = ok + bad;
  const max = Math.max(1, ...series.hours.map((_, i) => series.succeeded[i] + series.failed[i]));
  const width = 480;
  const height = 170;
  const top = 10;
  const bottom = 22;
  const left = 28;
  const slot = (width - left) / 24;
  const y = (value: number) => top + (height - top - bottom) * (1 - value / max);
  const shown = current ?? 23;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Deliveries per hour, last 24 hours: ${ok} succeeded, ${bad} failed`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line className="grid-line" x1={left} x2={width} y1={y(max * f)} y2={y(max * f)} />
            <text className="axis" x={left - 6} y={y(max * f) + 4} textAnchor="end">
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {series.hours.map((hour, i) => {
          const x = left + i * slot;
          const s = series.succeeded[i];
          const f = series.failed[i];
          return (
            <g key={hour}>
              <rect
                className={current === i ? "hit current" : "hit"}
                x={x}
                y={top}
                width={slot}
                height={height - top - bottom}
                onPointerEnter={() => setCurrent(i)}
                onPointerLeave={() => setCurrent(undefined)}
              />
              {s > 0 && <rect className="bar-ok" x={x + 3} width={slot - 6} y={y(s)} height={y(0) - y(s)} rx={2} pointerEvents="none" />}
              {f > 0 && <rect className="bar-bad" x={x + 3} width={slot - 6} y={y(s + f)} height={y(s) - y(s + f)} rx={2} pointerEvents="none" />}
              {i % 6 === 0 && (
                <text className="axis" x={x + slot / 2} y={height - 6} textAnchor="middle">
                  {hourLabel(hour)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="stack">
        <p className="legend" data-testid="chart-legend">
          <span className="key">
            <span className="swatch ok" aria-hidden="true" />
            Succeeded <strong>{ok}</strong>
          </span>
          <span className="key">
            <span className="swatch bad" aria-hidden="true" />
            Failed <strong>{bad}</strong>
          </span>
          <span className="key">
            Success rate <strong>{total === 0 ? "—" : `${Math.round((ok / total) * 100)} %`}</strong>
          </span>
        </p>
        <p className="muted" aria-live="polite" data-testid="chart-hour">
          {current === undefined ? "This hour" : `Hour from ${hourLabel(series.hours[shown])}`}: {series.succeeded[shown]} succeeded, {series.failed[shown]}{" "}
          failed
          {total === 0 ? " · no deliveries in the last 24 hours" : ""}
        </p>
      </figcaption>
    </figure>
  );
}
