// What the webhooks, API keys and billing pages share: reading form fields, times, notices, the
// once-shown secret, small post buttons and the link to a list's next page.
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import type { SignedInContext } from '../guard.ts';
import { time } from '../conversations/format.ts';
import { csrfField, hidden, layout, secretField, type Poster } from '../layout.ts';

export const PUBLIC = { auth: 'public' as const };
export const HIDDEN = { hide: true };

/** A form or query field's text; '' when absent or not text. */
export const text = (fields: unknown, name: string): string => {
  const value = (fields as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

export const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A UTC time as the console shows it, machine-readable in <time>; `empty` when there is none. */
export function when(iso: string | null, empty = 'Never'): Html {
  return iso ? time(iso) : html`<span class="small">${empty}</span>`;
}

/** A console path (from safeNext) with the notice a page shows after a redirect. */
export function withNotice(path: string, key: string): string {
  const url = new URL(path, 'http://console.invalid');
  url.searchParams.set('notice', key);
  return `${url.pathname}${url.search}`;
}

/** The link to a list's next page, when there is one: the list's filters (those given) and the cursor. */
export function nextPage(
  path: string,
  cursor: string | null,
  label: string,
  filters: Record<string, string | null> = {},
) {
  const query = new URLSearchParams(
    Object.entries(filters).filter((filter): filter is [string, string] => !!filter[1]),
  );
  if (cursor) query.set('cursor', cursor);
  return cursor ? { href: `${path}?${query}`, label } : null;
}

/** A notice announced by screen readers when the page loads (role=status is a polite live region). */
export function notice(kind: 'ok' | 'info', content: HtmlValue): Html {
  return html`<div class="notice ${kind}" role="status">${content}</div>`;
}

/** The notice a redirect asked for (?notice=...), from the page's own fixed texts only. */
export function noticeOf(query: unknown, texts: Record<string, string>): Html | undefined {
  const key = text(query, 'notice');
  return Object.hasOwn(texts, key) ? notice('ok', texts[key]) : undefined;
}

/** A one-button form: the console's way to act on a row without JavaScript. */
export function postButton(
  poster: Poster,
  action: string,
  label: string,
  options: { className?: string; ariaLabel?: string; fields?: Record<string, string> } = {},
): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => hidden(name, value));
  return html`<form method="post" action="${action}">${csrfField(poster)}${fields}<button type="submit" class="${options.className ?? 'secondary'} small-button"${options.ariaLabel ? html` aria-label="${options.ariaLabel}"` : ''}>${label}</button></form>`;
}

/**
 * A secret shown once (API key, webhook signing secret, device key, enrollment token): its field
 * with a Copy button, and the notice that it cannot be shown again. Announced on load.
 */
export function revealOnce(options: Parameters<typeof secretField>[0] & { heading: string; explain: string }): Html {
  return html`<section class="reveal" aria-labelledby="${options.id}-heading">
${notice('ok', html`<h2 id="${options.id}-heading">${options.heading}</h2><p><strong>Copy it now: it will not be shown again.</strong> ${options.explain}</p>`)}
${secretField(options)}
</section>`;
}

/** A section's page: the layout with a wide card. */
export const sectionPage = (context: SignedInContext, title: string, content: Html) =>
  layout(context, title, html`<div class="card wide account">\n${content}\n</div>`);

/** A pill that says a state in words (and a symbol), never by colour alone. */
export const stateTag = (kind: 'ok' | 'warn' | 'bad' | 'idle', label: string) => {
  const symbol = { ok: '✓', warn: '!', bad: '✕', idle: '•' }[kind];
  return html`<span class="state state-${kind}"><span aria-hidden="true">${symbol} </span>${label}</span>`;
};

/** A group of fields (radios, checkboxes, buttons) with its legend and its error, announced with the group. */
export const fieldset = (
  group: { id: string; legend: string; error?: string; className?: string },
  content: HtmlValue,
) =>
  html`<fieldset class="field${group.className ? ` ${group.className}` : ''}"${group.error ? html` aria-describedby="${group.id}-error"` : ''}>
<legend>${group.legend}</legend>
${content}
${group.error ? html`<p class="field-error" id="${group.id}-error">${group.error}</p>` : ''}
</fieldset>`;

/** A checkbox or radio with its label. */
export const choiceBox = (box: {
  type: 'checkbox' | 'radio';
  id: string;
  name: string;
  value: string;
  checked: boolean;
  label: HtmlValue;
}) =>
  html`<div class="check">
<input type="${box.type}" id="${box.id}" name="${box.name}" value="${box.value}"${box.checked ? ' checked' : ''}>
<label for="${box.id}">${box.label}</label>
</div>`;

/** A group of checkboxes or radios, each with its label (ids `<group id>-<i>`), with the group's legend and error. */
export const choiceGroup = (
  group: { id: string; legend: string; error?: string; type: 'checkbox' | 'radio' },
  boxes: readonly { name: string; value: string; checked: boolean; label: HtmlValue }[],
) =>
  fieldset(
    group,
    join(
      boxes.map((box, i) => choiceBox({ type: group.type, id: `${group.id}-${i}`, ...box })),
      '\n',
    ),
  );
