// The month's usage as a bar chart in the console's chart frame (../chart.ts; colours from classes
// in account.css), one bar per day that has usage, plus the same figures as a table, which is what
// screen readers and text browsers get.
import { html, type Html } from '../../../lib/html.ts';
import { dollars, MICROS_PER_USD } from '../../billing/money.ts';
import type { UsageService } from '../../billing/usage.ts';
import { capitalized } from './shared.ts';
import { plural } from '../../../lib/plural.ts';
import { dataTable } from '../data-table.ts';
import { bottomLabels, chartFigure, gridLines, LEFT, PLOT_W, yScale } from '../chart.ts';

export type DailyUsage = Awaited<ReturnType<UsageService['daily']>>['days'][number];

/** A UTC year and month (0-11). */
export type Month = { year: number; month: number };

/** The UTC month of `now` and its range [first day, first day of the next), as the usage reads take it. */
export function monthOf(now: Date): { month: Month; range: { from: string; to: string } } {
  const month = { year: now.getUTCFullYear(), month: now.getUTCMonth() };
  const day = (offset: number) => new Date(Date.UTC(month.year, month.month + offset, 1)).toISOString();
  return { month, range: { from: day(0), to: day(1) } };
}

const HEIGHT = 220;
const TOP = 12;
const BOTTOM = 28;
const PLOT_H = HEIGHT - TOP - BOTTOM;

const TYPE_WORDS: Record<string, [string, string]> = {
  sms: ['SMS', 'SMS'],
  mms: ['MMS', 'MMS'],
  cell_month: ['cell-month', 'cell-months'],
};

export const monthName = (month: Month) =>
  new Date(Date.UTC(month.year, month.month, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
const daysIn = (month: Month) => new Date(Date.UTC(month.year, month.month + 1, 0)).getUTCDate();
const dayName = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleString('en-US', { day: 'numeric', month: 'long', timeZone: 'UTC' });
const micros = (usd: string) => Math.round(Number(usd) * MICROS_PER_USD);

const quantities = (day: DailyUsage) =>
  day.by_type.map((t) => plural(t.quantity, ...(TYPE_WORDS[t.type] ?? [t.type, t.type]))).join(', ');

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `value`: round figures on the axis. */
function axisTop(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((step) => step * power).find((top) => top >= value) as number;
}

/** The chart of `days` (the days with usage in `month`); null when there is none. */
export function usageChart(id: string, month: Month, days: DailyUsage[]): Html | null {
  if (days.length === 0) return null;
  const total = days.reduce((sum, day) => sum + micros(day.amount_usd), 0);
  const peak = days.reduce((best, day) => (micros(day.amount_usd) > micros(best.amount_usd) ? day : best));
  const top = axisTop(Math.max(micros(peak.amount_usd), 1));
  const count = daysIn(month);
  const slot = PLOT_W / count;
  const y = yScale(TOP, PLOT_H, 0, top);
  const grid = gridLines([0, top / 2, top].map((amount) => ({ y: y(amount), label: dollars(amount, true) })));
  const ticks = bottomLabels(
    HEIGHT,
    [1, 8, 15, 22, count].map((day) => ({ x: LEFT + (day - 0.5) * slot, text: day })),
  );
  const bars = days.map((day) => {
    const amount = micros(day.amount_usd);
    const height = Math.max((amount / top) * PLOT_H, 1);
    const dayOfMonth = Number(day.date.slice(8, 10));
    return html`<rect class="bar" x="${(LEFT + (dayOfMonth - 1) * slot + slot * 0.15).toFixed(1)}" y="${(TOP + PLOT_H - height).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}"><title>${`${dayName(day.date)}: ${dollars(amount, true)} (${quantities(day)})`}</title></rect>`;
  });
  const summary = `${dollars(total, true)} over ${days.length} ${days.length === 1 ? 'day' : 'days'} with usage; the highest was ${dollars(micros(peak.amount_usd), true)} on ${dayName(peak.date)}. The table below has every day's figures.`;
  const title = `Usage per day in ${monthName(month)}, in US dollars`;
  const caption = `Amount charged per day (UTC), ${monthName(month)}. Day of the month along the bottom.`;
  return chartFigure({ id, className: 'chart', height: HEIGHT, title, summary, caption }, [grid, ticks, bars]);
}

/** The same figures as a table: the chart's text alternative, and the exact numbers for everyone. */
export function usageTable(month: Month, days: DailyUsage[]): Html {
  if (days.length === 0) return html``;
  const table = dataTable<DailyUsage>({
    caption: `Usage by day in ${monthName(month)} (days with usage only)`,
    columns: [
      { label: 'Day', value: (day) => html`<time datetime="${day.date}">${dayName(day.date)}</time>` },
      ...Object.keys(TYPE_WORDS).map((type) => ({
        label: capitalized(TYPE_WORDS[type][1]),
        numeric: true,
        value: (day: DailyUsage) => day.by_type.find((t) => t.type === type)?.quantity ?? 0,
      })),
      { label: 'Amount', numeric: true, value: (day) => dollars(day.amount_usd) },
    ],
    rows: days,
    empty: '',
  });
  return html`<div class="usage-days">${table}</div>`;
}
