// A phone's battery and signal over the last 24 hours in the console's chart frame (../chart.ts,
// like the usage chart): one line per measure over the same time axis, and the same figures as a
// table of hours, which is what screen readers and text browsers get.
import { html, join, type Html } from '../../../lib/html.ts';
import { dataTable } from '../data-table.ts';
import { bottomLabels, chartFigure, gridLines, LEFT, PLOT_W, yScale } from '../chart.ts';
import type { heartbeatView } from '../../devices/heartbeats.ts';

/** A heartbeat as the admin surface shows it. */
export type TelemetryPoint = ReturnType<typeof heartbeatView>;

const PANEL = 120;
const GAP = 36;
const TOP = 14;
const BOTTOM = 26;
const HEIGHT = TOP + PANEL * 2 + GAP + BOTTOM;
const SIGNAL_MIN = -130;
const SIGNAL_MAX = -40;

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
  const yBattery = yScale(batteryTop, PANEL, 0, 100);
  const ySignal = yScale(signalTop, PANEL, SIGNAL_MIN, SIGNAL_MAX);
  const grid = gridLines([
    ...[0, 50, 100].map((pct) => ({ y: yBattery(pct), label: `${pct}%` })),
    ...[SIGNAL_MIN, -85, SIGNAL_MAX].map((dbm) => ({ y: ySignal(dbm), label: `${dbm}` })),
  ]);
  const ticks = bottomLabels(
    HEIGHT,
    [0, 6, 12, 18, 24].map((h) => {
      const time = start + (h / 24) * span;
      const anchor = h === 0 ? 'start' : h === 24 ? 'end' : 'middle';
      return { x: x(time), text: new Date(time).toISOString().slice(11, 16), anchor };
    }),
  );
  const summary = `Battery ${summarize(battery, '%')}; signal ${summarize(signal, ' dBm')}. The table below has the figures per hour.`;
  const title = 'Battery (percent, top) and signal (dBm, bottom) over the last 24 hours';
  const caption = 'Battery (top) and signal (bottom) as the phone reported them, UTC hours along the bottom.';
  return chartFigure({ id, className: 'chart telemetry-chart', height: HEIGHT, title, summary, caption }, [
    html`<text class="axis panel-label" x="${LEFT}" y="${batteryTop - 3}">Battery %</text>
<text class="axis panel-label" x="${LEFT}" y="${signalTop - 3}">Signal dBm</text>`,
    grid,
    ticks,
    marks(lines(points, 'battery_pct', x, yBattery), 'line-battery'),
    marks(lines(points, 'signal_dbm', x, ySignal), 'line-signal'),
  ]);
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
