// The console's tables are written from their columns: the head row and every body row come from
// the same list, so each value carries its column's label (data-label). On a phone the stylesheet
// stacks a table's rows without its head row, and each value shows that label before it.
import { html, join, type Html, type HtmlValue } from '../../lib/html.ts';

/** A column: its heading, or the heading with how its values are shown. */
export type Column = string | ColumnOptions;

interface ColumnOptions {
  label: string;
  /** The heading is for screen readers only (a column of buttons): its values get no label. */
  hiddenLabel?: boolean;
  /** Figures, aligned right: the heading too. */
  numeric?: boolean;
  /** Classes of the column's values ("mono"). */
  className?: string;
}

const classOf = (names: readonly (string | false | undefined)[]) => {
  const classes = names.filter(Boolean).join(' ');
  return classes ? html` class="${classes}"` : '';
};
const optionsOf = (column: Column): ColumnOptions => (typeof column === 'string' ? { label: column } : column);
const valueClass = (column: ColumnOptions) => classOf([column.numeric && 'num', column.className]);

/** The head row: one heading per column. */
export function tableHead(columns: readonly Column[]): Html {
  const headings = columns
    .map(optionsOf)
    .map(
      (column) =>
        html`<th scope="col"${classOf([column.numeric && 'num'])}>${column.hiddenLabel ? html`<span class="visually-hidden">${column.label}</span>` : column.label}</th>`,
    );
  return html`<thead><tr>${headings}</tr></thead>`;
}

/**
 * A body row: `cells[i]` under `columns[i]`, each labelled with its column. With `rowHeader` the
 * first cell is the row's header (th scope="row"), which names the row and is not labelled.
 */
export function tableRow(
  columns: readonly Column[],
  cells: readonly HtmlValue[],
  options: { id?: string; rowHeader?: boolean } = {},
): Html {
  const rendered = cells.map((cell, index) => {
    const column = optionsOf(columns[index]);
    if (index === 0 && options.rowHeader) return html`<th scope="row"${valueClass(column)}>${cell}</th>`;
    const label = column.hiddenLabel ? '' : html` data-label="${column.label}"`;
    return html`<td${label}${valueClass(column)}>${cell}</td>`;
  });
  return html`<tr${options.id ? html` id="${options.id}"` : ''}>
${join(rendered, '\n')}
</tr>`;
}

/** A column that also says how a row shows under it. */
export type RowColumn<Row> = ColumnOptions & { value: (row: Row) => HtmlValue };

/** The cells of `row` under `columns`, labelled (for a live update of one row, or a table body). */
export const rowOf = <Row>(
  columns: readonly RowColumn<Row>[],
  row: Row,
  options: { id?: string; rowHeader?: boolean } = {},
): Html =>
  tableRow(
    columns,
    columns.map((column) => column.value(row)),
    options,
  );

/**
 * A whole table from its rows: `empty` when there are none; else the caption, the head and a row
 * per item (the first cell its header unless `rowHeader` is false), in a scrolling region named
 * by the caption when `scrollId` is given; then a link to the next page when there is one.
 */
export function dataTable<Row>(spec: {
  caption: HtmlValue;
  columns: readonly RowColumn<Row>[];
  rows: readonly Row[];
  empty: HtmlValue;
  rowHeader?: boolean;
  rowId?: (row: Row) => string;
  scrollId?: string;
  more?: { href: string; label: string } | null;
}): Html {
  const more = spec.more && html`\n<p class="after"><a href="${spec.more.href}">${spec.more.label}</a></p>`;
  if (spec.rows.length === 0) return html`<p>${spec.empty}</p>${more}`;
  const rowHeader = spec.rowHeader ?? true;
  const body = join(
    spec.rows.map((row) => rowOf(spec.columns, row, { rowHeader, id: spec.rowId?.(row) })),
    '\n',
  );
  const table = html`<table>
<caption${spec.scrollId ? html` id="${spec.scrollId}"` : ''}>${spec.caption}</caption>
${tableHead(spec.columns)}
<tbody>
${body}
</tbody>
</table>`;
  const region = spec.scrollId
    ? html`<div class="table-scroll" role="region" aria-labelledby="${spec.scrollId}" tabindex="0">${table}</div>`
    : table;
  return html`${region}${more}`;
}
