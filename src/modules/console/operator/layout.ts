// The operator console's page shell: the organization console's stylesheet and habits (skip link,
// labelled navigation with aria-current, escaped values), its own title, navigation and sign-out.
import { html, type Html } from '../../../lib/html.ts';
import { CONSOLE_PATH } from '../http.ts';
import { contextOf } from '../guard.ts';
import { hidden, messageCard, pageShell } from '../layout.ts';
import { messagePage } from '../pages.ts';
import type { OperatorSession } from './service.ts';

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

export const csrfInput = (session: OperatorSession) => hidden('csrf_token', session.csrfToken);

export function operatorLayout(page: OperatorPage, title: string, content: Html): Html {
  const { session } = page;
  const nav = session
    ? html`<nav aria-label="Operator console">${SECTIONS.map((section) => html`<a href="${BASE}${section.path}"${page.current === section.id ? html` aria-current="page"` : ''}>${section.label}</a>`)}</nav>
<div class="who"><span>Operator</span>
<form method="post" action="${BASE}/sign-out">${csrfInput(session)}<button type="submit" class="link-button">Sign out</button></form></div>`
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
