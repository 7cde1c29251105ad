// HTML that escapes by construction. `html\`…\`` escapes every interpolated value unless it is
// itself `html` (or `raw`): a page cannot forget to escape, and trusting a string takes a visible
// `raw()`. Arrays are flattened (no separator), and null, undefined and false render nothing, so
// `${items.map((item) => html`<li>${item}</li>`)}` and `${error && html`<p>${error}</p>`}` read as
// they render. Hono's `src/helper/html` is the model.

/** Markup that is already safe: built by `html`, `join` or `raw`. Not a string, so it cannot be mistaken for text. */
export class Html {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
  /** JSON.stringify(html) gives the markup, never `{}`. */
  toJSON(): string {
    return this.#markup;
  }
}

/** What a page may interpolate: text (escaped), numbers, markup, nothing, or a list of these. */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&#38;', '<': '&#60;', '>': '&#62;', '"': '&#34;', "'": '&#39;' };
const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);

function append(parts: string[], value: HtmlValue): void {
  if (value === null || value === undefined || value === false) return;
  if (value instanceof Html) parts.push(value.toString());
  else if (Array.isArray(value)) for (const item of value as readonly HtmlValue[]) append(parts, item);
  else parts.push(escapeText(String(value)));
}

/** The tag: the template's own text is trusted markup; every interpolated value is escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const parts = [strings[0]];
  values.forEach((value, i) => {
    append(parts, value);
    parts.push(strings[i + 1]);
  });
  return new Html(parts.join(''));
}

/** Items with a separator between them (`join(rows, '\n')`); each item and the separator escaped unless `Html`. */
export function join(items: readonly HtmlValue[], separator: HtmlValue): Html {
  const parts: string[] = [];
  items.forEach((item, i) => {
    if (i > 0) append(parts, separator);
    append(parts, item);
  });
  return new Html(parts.join(''));
}

/**
 * A string trusted as markup, unescaped. Only for markup the server made itself (an SVG drawn
 * from numbers, JSON serialised for a script tag); say at each use why it is safe.
 */
export const raw = (markup: string): Html => new Html(markup);
