// The operator console's page shell: the organization console's stylesheet and habits (skip link,
// labelled navigation with aria-current, escaped values), its own title, navigation and sign-out.
import { html, join, type Html, type HtmlValue } from '../../../lib/html.ts';
import { CONSOLE_PATH } from '../http.ts';
import { contextOf } from '../guard.ts';
import { csrfField, errorNotice, field, messageCard, pageShell, postForm as consolePostForm } from '../layout.ts';
import { messagePage } from '../pages.ts';
import type { OperatorSession } from './service.ts';
import type { Refusal } from '../binder.ts';

const BASE = `${CONSOLE_PATH}/operator`;

/** The operator console's sections, in the order of its navigation. */
const SECTIONS = [
  { id: 'fleet', path: '/fleet', label: 'Fleet' },
  { id: 'organizations', path: '/organizations', label: 'Organizations' },
  { id: 'deposits', path: '/deposits', label: 'Deposits' },
  { id: 'webhooks', path: '/webhooks', label: 'Webhooks' },
  { id: 'audit', path: '/audit', label: 'Audit' },
  { id: 'outbox', path: '/outbox', label: 'Outbox' },
] as const;
export type OperatorSection = (typeof SECTIONS)[number]['id'];

export interface OperatorPage {
  session: OperatorSession | null;
  current?: OperatorSection;
  /** Scripts of the page (progressive enhancement only). */
  scripts?: string[];
}

/** An operator's form: its refusal as a whole said above it, then the console's postForm. */
export const postForm = (
  session: OperatorSession,
  form: Parameters<typeof consolePostForm>[1] & { notice?: string },
  fields?: HtmlValue,
) => html`${errorNotice(form.notice)}
${consolePostForm(session, form, fields)}`;

export function operatorLayout(page: OperatorPage, title: string, content: Html): Html {
  const { session } = page;
  const nav = session
    ? html`<nav aria-label="Operator console">${SECTIONS.map((section) => html`<a href="${BASE}${section.path}"${page.current === section.id ? html` aria-current="page"` : ''}>${section.label}</a>`)}</nav>
<div class="who"><span>Operator</span>
<form method="post" action="${BASE}/sign-out">${csrfField(session)}<button type="submit" class="link-button">Sign out</button></form></div>`
    : html`<nav aria-label="Operator console"></nav>`;
  return pageShell({
    title: `${title} — Cellgate Operator`,
    stylesheet: `${CONSOLE_PATH}/console.css`,
    scripts: (page.scripts ?? []).map((script) => `${BASE}/${script}`),
    brand: { href: `${BASE}/fleet`, label: 'Operator' },
    nav,
    content,
    bodyClass: 'operator',
  });
}

/** A page that tells what happened and where to go next. */
export function operatorMessagePage(
  session: OperatorSession | null,
  title: string,
  message: string,
  link?: { href: string; text: string },
): Html {
  return operatorLayout({ session }, title, messageCard(title, message, link));
}

/**
 * What a page answers to a session of the other console: the organization console's own "not
 * found" page, so nothing tells that an operator console is here.
 */
export const notFoundPage = () =>
  messagePage(contextOf(null), 'Page not found', 'There is no page at this address.', {
    href: `${CONSOLE_PATH}/cells`,
    text: 'Go to the console',
  });

/** A wide card of a section. */
export const sectionPage = (page: OperatorPage, title: string, content: Html) =>
  operatorLayout(page, title, html`<div class="card wide account">\n${content}\n</div>`);

/** Links to the views of a list, the current one marked. */
export const tabs = (label: string, links: readonly (readonly [string, string, boolean])[]) =>
  html`<nav aria-label="${label}" class="filters small">${join(
    links.map(
      ([href, text, current]) => html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${text}</a>`,
    ),
    ' · ',
  )}</nav>`;

/**
 * An operator action's form, named by its heading: what it does, a refusal of it said above it,
 * its fields, its reason (kept with the action in the audit log) and its button. `sent`: this
 * form as it was sent, with its refusal.
 */
export function actionForm(
  session: OperatorSession,
  form: {
    id: string;
    heading: string;
    level: 2 | 3;
    explain: string;
    action: string;
    sent?: Omit<Refusal, 'status'>;
    fields?: HtmlValue;
    reason?: { optional?: boolean; hint?: string };
    button: string;
    tone: 'danger' | 'primary';
  },
): Html {
  const heading = `${form.id}-heading`;
  const { optional, hint } = form.reason ?? {};
  return html`<h${form.level} id="${heading}">${form.heading}</h${form.level}>
<p class="small">${form.explain}</p>
${errorNotice(form.sent?.notice)}
<form method="post" action="${form.action}" novalidate aria-labelledby="${heading}">
${csrfField(session)}
${form.fields ?? ''}
${field({ id: `${form.id}-reason`, name: 'reason', label: optional ? 'Reason (optional)' : 'Reason', type: 'text', value: form.sent?.values.reason, error: form.sent?.errors.reason, hint, optional, attributes: html`maxlength="500" autocomplete="off"` })}
<button type="submit" class="${form.tone}">${form.button}</button>
</form>`;
}
