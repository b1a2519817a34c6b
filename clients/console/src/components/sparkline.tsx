// A small line chart of one numeric field of a device's readings, oldest to newest.
export function Sparkline({ label, values }: { label: string; values: number[] }) {
  if (values.length === 0) return null;
  const width = 240;
  const height = 56;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const x = (i: number) => (values.length === 1 ? width / 2 : 4 + (i * (width - 8)) / (values.length - 1));
  const y = (v: number) => 6 + (height - 12) * (1 - (v - min) / span);
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${values.join(", ")} (oldest to newest)`}>
        <polyline className="line" points={points} />
        {values.map((v, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: points are positions in a fixed series
          <circle key={i} className="point" cx={x(i)} cy={y(v)} r={3} />
        ))}
      </svg>
      <figcaption className="muted">
        {label}: latest {values.at(-1)}, range {min}–{max}
      </figcaption>
    </figure>
  );
}
