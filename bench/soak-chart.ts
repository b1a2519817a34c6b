// The soak run's chart: one panel per measure (a few series each) over the run's minutes, as a
// plain SVG written by hand (no chart library: a line per series, the axis range, a legend).
export interface Series {
  name: string;
  /** [minute, value] pairs; NaN values are gaps. */
  points: [number, number][];
}

export interface Panel {
  title: string;
  unit: string;
  series: Series[];
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
const WIDTH = 900;
const PANEL_HEIGHT = 170;
const LEFT = 70;
const RIGHT = 190;
const TOP = 28;
const BOTTOM = 26;

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fixed = (value: number) =>
  value === 0 ? "0" : Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(1) : value.toPrecision(2);

export function renderChart(title: string, panels: Panel[]): string {
  const height = panels.length * PANEL_HEIGHT + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="18" font-size="14" font-weight="bold">${xmlText(title)}</text>`,
  ];
  for (const [i, panel] of panels.entries()) parts.push(renderPanel(panel, 30 + i * PANEL_HEIGHT));
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

function renderPanel(panel: Panel, top: number): string {
  const values = panel.series.flatMap((s) => s.points.map((p) => p[1])).filter(Number.isFinite);
  const minutes = panel.series.flatMap((s) => s.points.map((p) => p[0]));
  const xMax = Math.max(1e-9, ...minutes);
  const yMin = Math.min(0, ...values);
  const yMax = values.length ? Math.max(...values) * 1.05 || 1 : 1;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = PANEL_HEIGHT - TOP - BOTTOM;
  const x = (m: number) => LEFT + (m / xMax) * plotW;
  const y = (v: number) => top + TOP + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;
  const out = [
    `<text x="${LEFT}" y="${top + TOP - 8}" font-weight="bold">${xmlText(panel.title)} (${xmlText(panel.unit)})</text>`,
    `<rect x="${LEFT}" y="${top + TOP}" width="${plotW}" height="${plotH}" fill="none" stroke="#bbb"/>`,
    `<text x="${LEFT - 6}" y="${top + TOP + 4}" text-anchor="end">${fixed(yMax)}</text>`,
    `<text x="${LEFT - 6}" y="${top + TOP + plotH}" text-anchor="end">${fixed(yMin)}</text>`,
    `<text x="${LEFT}" y="${top + TOP + plotH + 14}">0</text>`,
    `<text x="${LEFT + plotW}" y="${top + TOP + plotH + 14}" text-anchor="end">${fixed(xMax)} min</text>`,
  ];
  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    // A gap (NaN) ends one polyline and starts the next.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${run.join(" ")}"/>`);
      run = [];
    };
    for (const [m, v] of series.points) {
      if (!Number.isFinite(v)) flush();
      else run.push(`${x(m).toFixed(1)},${y(v).toFixed(1)}`);
    }
    flush();
    const ly = top + TOP + 10 + i * 14;
    out.push(`<line x1="${WIDTH - RIGHT + 10}" y1="${ly - 4}" x2="${WIDTH - RIGHT + 28}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${WIDTH - RIGHT + 32}" y="${ly}">${xmlText(series.name)}</text>`);
  });
  return out.join("\n");
}
