/// <reference lib="dom" />
// Pages as a person meets them: the HTML of a response parsed by happy-dom and asked with Testing
// Library's queries (a button named "Send", a field labelled "Phone number", a table's rows), so a
// console test pins what the page says and offers, not its classes and attribute order. Scripts
// never run and nothing is fetched: the pages are parsed, not browsed. (The DOM library above
// types the elements the queries return.)
import { after } from 'node:test';
import { getQueriesForElement, type BoundFunctions, type queries } from '@testing-library/dom';
import { Window } from 'happy-dom';

/** One window for the test process; each page is a document parsed in it, dropped with its test. */
const domWindow = new Window({
  // JavaScript evaluation, stylesheets, images and frames are off by default; script files too.
  settings: { disableJavaScriptFileLoading: true, handleDisabledFileLoadingAsSuccess: true },
});
after(() => domWindow.happyDOM.close());
const parser = new domWindow.DOMParser();

/** Elements read inline; any other starts and ends a run of text (a cell, an item, a paragraph). */
const INLINE = new Set([
  'A',
  'ABBR',
  'B',
  'CODE',
  'DATA',
  'EM',
  'I',
  'KBD',
  'LABEL',
  'MARK',
  'Q',
  'S',
  'SMALL',
  'SPAN',
  'STRONG',
  'TIME',
]);
const UNREAD = new Set(['SCRIPT', 'STYLE', 'TEMPLATE']);
/**
 * happy-dom computes no display for inline elements (an empty string), and accessible names put a
 * space around any element that is not inline: "cellgate ?" where a browser says "cellgate?".
 * Each parsed page gets the browser's default for them.
 */
const INLINE_STYLE = `${[...INLINE].join(',').toLowerCase()}{display:inline}`;

function read(node: Node): string {
  if (node.nodeType === node.TEXT_NODE) return node.textContent ?? '';
  if (node.nodeType !== node.ELEMENT_NODE) return '';
  const tag = (node as Element).tagName;
  if (UNREAD.has(tag)) return '';
  const inside = [...node.childNodes].map(read).join('');
  return INLINE.has(tag) ? inside : ` ${inside} `;
}

/** The text of a node as a person reads it: no markup, a space between cells, items and lines. */
export const textOf = (node: Node | null): string => (node ? read(node).replace(/\s+/g, ' ').trim() : '');

/** What is announced with an element besides its name: the texts its aria-describedby names. */
export const descriptionOf = (element: Element | null): string =>
  (element?.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => textOf(element?.ownerDocument.getElementById(id) ?? null))
    .join(' ');

export type Queries = BoundFunctions<typeof queries>;

/** Testing Library's queries over a part of a page, and the questions tests ask of it most. */
export interface Part extends Queries {
  /** The same, inside one element of this part (a form, a row, a list item). */
  within(element: HTMLElement): Part;
  /** The region (a section named by its heading) with this name. */
  section(name: string | RegExp): Part;
  /** The text as a person reads it (no markup, whitespace folded). */
  text(): string;
  /** The value of the form field with this label (an input's, a textarea's, the chosen option's). */
  valueOf(label: string | RegExp): string;
  /** What the description list says for a term (`<dt>Plan</dt><dd>…</dd>`): the text of its definition. */
  definition(term: string | RegExp): string;
  /** The rows of the table with this name (caption or label) that are not only column headers, as cell texts. */
  rows(table: string | RegExp): string[][];
  /** The row of that table whose header cell has this name, as column header → cell text. */
  row(table: string | RegExp, name: string | RegExp): Record<string, string>;
  /** Where the link with this name goes (the href as written). */
  href(link: string | RegExp): string;
  /** The value a form posts without showing it (its hidden input with this name); undefined when none. */
  hidden(name: string): string | undefined;
}

export interface Page extends Part {
  document: Document;
}

/** Parses a page (its HTML, or a response carrying it) for queries by role, label and text. */
export function page(source: string | { body: string }): Page {
  const html = typeof source === 'string' ? source : source.body;
  const document = parser.parseFromString(html, 'text/html') as unknown as Document;
  const style = document.createElement('style');
  style.textContent = INLINE_STYLE;
  document.head.append(style);
  return { ...part(document.body), document };
}

function part(root: HTMLElement): Part {
  const found = getQueriesForElement(root);
  return {
    ...found,
    within: part,
    section: (name) => part(found.getByRole('region', { name })),
    text: () => textOf(root),
    valueOf(label) {
      const control = found.getByLabelText<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(label);
      return control.tagName === 'SELECT' ? chosen(control as HTMLSelectElement).value : control.value;
    },
    definition(term) {
      // A term has no accessible name of its own (ARIA names it by its author only): found by its text.
      let node = found.getByText(term, { selector: 'dt' }).nextElementSibling;
      while (node && node.tagName !== 'DD') node = node.nextElementSibling;
      return textOf(node);
    },
    rows(table) {
      const rows = found.getByRole('table', { name: table }).querySelectorAll('tr');
      return [...rows]
        .map((row) => [...row.cells])
        .filter((cells) => cells.some((cell) => !isColumnHeader(cell)))
        .map((cells) => cells.map(textOf));
    },
    row(table, name) {
      const element = found.getByRole('table', { name: table });
      const header = [...element.querySelectorAll('tr')].find((row) => [...row.cells].every(isColumnHeader));
      const keys = [...(header?.cells ?? [])].map(textOf);
      const row = getQueriesForElement(element).getByRole('rowheader', { name }).closest('tr');
      return Object.fromEntries([...(row?.cells ?? [])].map((cell, i) => [keys[i] ?? String(i), textOf(cell)]));
    },
    href: (link) => found.getByRole('link', { name: link }).getAttribute('href') ?? '',
    hidden: (name) => root.querySelector(`input[type="hidden"][name="${name}"]`)?.getAttribute('value') ?? undefined,
  };
}

/**
 * The option a select shows as parsed: the last marked `selected`, else the first. (happy-dom's
 * selectedIndex is wrong in a parsed document, capricorn86/happy-dom#2372.)
 */
const chosen = (select: HTMLSelectElement) =>
  [...select.options].findLast((option) => option.hasAttribute('selected')) ?? select.options[0];

const isColumnHeader = (cell: Element) =>
  cell.tagName === 'TH' &&
  (cell.getAttribute('scope') === 'col' || cell.parentElement?.parentElement?.tagName === 'THEAD');
