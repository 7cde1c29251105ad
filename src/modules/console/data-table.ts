// The console's tables are written from their columns: the head row and every body row come from
// the same list, so each value carries its column's label (data-label). On a phone the stylesheet
// stacks a table's rows without its head row, and each value shows that label before it.
import { html, join, type Html, type HtmlValue } from '../../lib/html.ts';

/** A column: its heading, how its values are shown, and how a row shows under it. */
export interface RowColumn<Row> {
  label: string;
  /** The heading is for screen readers only (a column of buttons): its values get no label. */
  hiddenLabel?: boolean;
  /** Figures, aligned right: the heading too. */
  numeric?: boolean;
  /** Classes of the column's values ("mono"). */
  className?: string;
  value: (row: Row) => HtmlValue;
}
type Columns<Row> = readonly RowColumn<Row>[];

const classOf = (names: readonly (string | false | undefined)[]) => {
  const classes = names.filter(Boolean).join(' ');
  return classes ? html` class="${classes}"` : '';
};

/** The head row: one heading per column. */
export const tableHead = <Row>(columns: Columns<Row>): Html =>
  html`<thead><tr>${columns.map(
    (column) =>
      html`<th scope="col"${classOf([column.numeric && 'num'])}>${column.hiddenLabel ? html`<span class="visually-hidden">${column.label}</span>` : column.label}</th>`,
  )}</tr></thead>`;

/** A row: its cells labelled with their column (data-label), the first its header (th scope="row") with `rowHeader`. */
export function rowOf<Row>(columns: Columns<Row>, row: Row, options: { id?: string; rowHeader?: boolean } = {}): Html {
  const cells = columns.map((column, index) => {
    const className = classOf([column.numeric && 'num', column.className]);
    if (index === 0 && options.rowHeader) return html`<th scope="row"${className}>${column.value(row)}</th>`;
    const label = !column.hiddenLabel && html` data-label="${column.label}"`;
    return html`<td${label}${className}>${column.value(row)}</td>`;
  });
  return html`<tr${options.id && html` id="${options.id}"`}>
${join(cells, '\n')}
</tr>`;
}

/**
 * A table from its rows (`empty` when none), scrolling in a region named by its caption with `scrollId`, then `more`.
 * A `live` table (rows a script adds and removes) draws both its empty text and its table, one hidden, with their ids.
 */
export function dataTable<Row>(spec: {
  caption: HtmlValue;
  columns: Columns<Row>;
  rows: readonly Row[];
  empty: HtmlValue;
  rowHeader?: boolean;
  rowId?: (row: Row) => string;
  scrollId?: string;
  more?: { href: string; label: string } | null;
  live?: { tbodyId: string; emptyId: string; className?: string };
}): Html {
  const { live, rows } = spec;
  const more = spec.more && html`\n<p class="after"><a href="${spec.more.href}">${spec.more.label}</a></p>`;
  if (rows.length === 0 && !live) return html`<p>${spec.empty}</p>${more}`;
  const rowHeader = spec.rowHeader ?? true;
  const body = join(
    rows.map((row) => rowOf(spec.columns, row, { rowHeader, id: spec.rowId?.(row) })),
    '\n',
  );
  const hiddenIf = (hidden: boolean) => (hidden ? ' hidden' : '');
  const table = html`<table${classOf([live?.className])}${hiddenIf(rows.length === 0)}>
<caption${spec.scrollId ? html` id="${spec.scrollId}"` : ''}>${spec.caption}</caption>
${tableHead(spec.columns)}
<tbody${live && html` id="${live.tbodyId}"`}>
${body}
</tbody>
</table>`;
  const region = spec.scrollId
    ? html`<div class="table-scroll" role="region" aria-labelledby="${spec.scrollId}" tabindex="0">${table}</div>`
    : table;
  return html`${live && html`<p id="${live.emptyId}"${hiddenIf(rows.length > 0)}>${spec.empty}</p>\n`}${region}${more}`;
}
