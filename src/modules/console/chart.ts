// The frame of the console's charts, drawn on the server: inline SVG (no library, no script; the
// CSP allows no inline styles, so colours come from classes in the pages' stylesheets) with its
// title and summary, labelled gridlines, labels along the bottom. Each chart draws its own series
// in it, and lists the same figures in a table, which is what screen readers and text browsers get.
import { html, join, type Html } from '../../lib/html.ts';

const WIDTH = 720;
/** Room on the left for the gridlines' labels. */
export const LEFT = 60;
const RIGHT = 8;
export const PLOT_W = WIDTH - LEFT - RIGHT;

/** Where `value` goes on a vertical axis from `low` (the bottom) to `high` (the top): values outside are held at the edge. */
export const yScale = (top: number, height: number, low: number, high: number) => (value: number) =>
  top + height - ((Math.min(high, Math.max(low, value)) - low) / (high - low)) * height;

/** Gridlines across the plot at each y, each labelled on the left. */
export const gridLines = (lines: { y: number; label: string }[]): Html[] =>
  lines.map(({ y, label }) => {
    const at = y.toFixed(1);
    return html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}"/>
<text class="axis" x="${LEFT - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${label}</text>`;
  });

/** Labels along the bottom of a chart `height` high, each centred on its x unless anchored otherwise. */
export const bottomLabels = (height: number, labels: { x: number; text: string | number; anchor?: string }[]): Html[] =>
  labels.map(
    ({ x, text, anchor = 'middle' }) =>
      html`<text class="axis" x="${x.toFixed(1)}" y="${height - 8}" text-anchor="${anchor}">${text}</text>`,
  );

/** The figure: the image, named by its title and summary for screen readers, drawing `parts` in order (a line each); and its caption. */
export const chartFigure = (
  chart: { id: string; className: string; height: number; title: string; summary: string; caption: string },
  parts: (Html | Html[])[],
) =>
  html`<figure class="${chart.className}">
<svg role="img" aria-labelledby="${chart.id}-title ${chart.id}-desc" viewBox="0 0 ${WIDTH} ${chart.height}" width="100%" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="${chart.id}-title">${chart.title}</title>
<desc id="${chart.id}-desc">${chart.summary}</desc>
${join(parts.flat(), '\n')}
</svg>
<figcaption class="small">${chart.caption}</figcaption>
</figure>`;
