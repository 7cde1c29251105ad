// A phone's battery and signal over the last 24 hours, drawn on the server like the usage chart
// (console/account/chart.ts): inline SVG, colours from classes (the CSP allows no inline styles),
// one line per measure over the same time axis, and the same figures as a table of hours, which
// is what screen readers and text browsers get.
import { html, join, type Html } from '../../../lib/html.ts';
import { dataTable } from '../data-table.ts';
import type { heartbeatView } from '../../devices/heartbeats.ts';

/** A heartbeat as the admin surface shows it. */
export type TelemetryPoint = ReturnType<typeof heartbeatView>;

const WIDTH = 720;
const PANEL = 120;
const GAP = 36;
const LEFT = 60;
const RIGHT = 8;
const TOP = 14;
const BOTTOM = 26;
const HEIGHT = TOP + PANEL * 2 + GAP + BOTTOM;
const PLOT_W = WIDTH - LEFT - RIGHT;
const SIGNAL_MIN = -130;
const SIGNAL_MAX = -40;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** Consecutive points that have the measure, as polyline point lists (a gap of > 10 minutes breaks the line). */
function lines(
  points: TelemetryPoint[],
  measure: 'battery_pct' | 'signal_dbm',
  x: (t: number) => number,
  y: (v: number) => number,
): string[] {
  const runs: string[][] = [];
  let last = -Infinity;
  for (const point of points) {
    const value = point[measure];
    if (value === null) continue;
    const time = Date.parse(point.received_at);
    if (time - last > 10 * 60_000 || runs.length === 0) runs.push([]);
    runs[runs.length - 1].push(`${x(time).toFixed(1)},${y(value).toFixed(1)}`);
    last = time;
  }
  return runs.map((run) => run.join(' '));
}

/** A lone report (no neighbour within 10 minutes) is a dot, not a zero-length line. */
function marks(runs: string[], className: string): Html {
  return join(
    runs.map((points) => {
      if (points.includes(' ')) return html`<polyline class="${className}" points="${points}"/>`;
      const [cx, cy] = points.split(',');
      return html`<circle class="${className} dot" cx="${cx}" cy="${cy}" r="3"/>`;
    }),
    '\n',
  );
}

const summarize = (values: number[], unit: string) =>
  values.length === 0
    ? 'no reports'
    : `from ${Math.min(...values)}${unit} to ${Math.max(...values)}${unit}, last ${values[values.length - 1]}${unit}`;

/** The chart of the window [from, to]; null when the phone reported nothing in it. */
export function telemetryChart(id: string, window: { from: Date; to: Date; points: TelemetryPoint[] }): Html | null {
  const { points } = window;
  const battery = points.map((p) => p.battery_pct).filter((v): v is number => v !== null);
  const signal = points.map((p) => p.signal_dbm).filter((v): v is number => v !== null);
  if (battery.length === 0 && signal.length === 0) return null;
  const start = window.from.getTime();
  const span = Math.max(window.to.getTime() - start, 1);
  const x = (time: number) => LEFT + ((time - start) / span) * PLOT_W;
  const batteryTop = TOP;
  const signalTop = TOP + PANEL + GAP;
  const yBattery = (pct: number) => batteryTop + PANEL - (clamp(pct, 0, 100) / 100) * PANEL;
  const ySignal = (dbm: number) =>
    signalTop + PANEL - ((clamp(dbm, SIGNAL_MIN, SIGNAL_MAX) - SIGNAL_MIN) / (SIGNAL_MAX - SIGNAL_MIN)) * PANEL;
  const gridLine = (y: number, label: string) =>
    html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}"/>
<text class="axis" x="${LEFT - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${label}</text>`;
  const grid = join(
    [
      ...[0, 50, 100].map((pct) => gridLine(yBattery(pct), `${pct}%`)),
      ...[SIGNAL_MIN, -85, SIGNAL_MAX].map((dbm) => gridLine(ySignal(dbm), `${dbm}`)),
    ],
    '\n',
  );
  const ticks = join(
    [0, 6, 12, 18, 24].map((h) => {
      const time = start + (h / 24) * span;
      const anchor = h === 0 ? 'start' : h === 24 ? 'end' : 'middle';
      return html`<text class="axis" x="${x(time).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="${anchor}">${new Date(time).toISOString().slice(11, 16)}</text>`;
    }),
    '\n',
  );
  const batteryLine = marks(lines(points, 'battery_pct', x, yBattery), 'line-battery');
  const signalLine = marks(lines(points, 'signal_dbm', x, ySignal), 'line-signal');
  const summary = `Battery ${summarize(battery, '%')}; signal ${summarize(signal, ' dBm')}. The table below has the figures per hour.`;
  return html`<figure class="chart telemetry-chart">
<svg role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">Battery (percent, top) and signal (dBm, bottom) over the last 24 hours</title>
<desc id="${id}-desc">${summary}</desc>
<text class="axis panel-label" x="${LEFT}" y="${batteryTop - 3}">Battery %</text>
<text class="axis panel-label" x="${LEFT}" y="${signalTop - 3}">Signal dBm</text>
${grid}
${ticks}
${batteryLine}
${signalLine}
</svg>
<figcaption class="small">Battery (top) and signal (bottom) as the phone reported them, UTC hours along the bottom.</figcaption>
</figure>`;
}

/** The figures per hour (the last report of each hour that has one): the chart's text alternative. */
export function telemetryTable(points: TelemetryPoint[]): Html {
  const byHour = new Map(points.map((point) => [point.received_at.slice(0, 13), point]));
  const reported = (value: number | null, unit: string) => (value === null ? '—' : `${value}${unit}`);
  return dataTable({
    caption: 'Last report of each hour (UTC)',
    empty: 'The phone reported no battery or signal in the last 24 hours.',
    rows: [...byHour.values()],
    columns: [
      {
        label: 'Hour',
        value: (p) => html`<time datetime="${p.received_at}">${p.received_at.slice(0, 13).replace('T', ' ')}:00</time>`,
      },
      { label: 'Battery', numeric: true, value: (p) => reported(p.battery_pct, '%') },
      { label: 'Charging', value: (p) => (p.charging === null ? '—' : p.charging ? 'Charging' : 'Not charging') },
      { label: 'Signal', numeric: true, value: (p) => reported(p.signal_dbm, ' dBm') },
    ],
  });
}
