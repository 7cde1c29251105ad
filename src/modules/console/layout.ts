// The console's page shell (head, bar, navigation, main) and its form pieces. Every value is
// escaped; the navigation marks the current page with aria-current.
import { FAVICON_LINK } from '../docs/favicon.ts';
export const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where the console lives (links, form actions), and the session's CSRF token when signed in. */
export interface PageContext {
  path: string;
  signedIn?: { organizationName: string; organizationEmail: string; csrfToken: string };
  current?: ConsoleSection;
  /** Scripts of the page (progressive enhancement only: every page works without them). */
  scripts?: string[];
}

/** The console's sections, in the order of its navigation. */
const SECTIONS = [
  { id: 'cells', path: '/cells', label: 'Cells' },
  { id: 'pods', path: '/pods', label: 'Pods' },
  { id: 'messages', path: '/messages', label: 'Messages' },
  { id: 'codes', path: '/codes', label: 'Codes' },
  { id: 'webhooks', path: '/webhooks', label: 'Webhooks' },
  { id: 'keys', path: '/keys', label: 'API keys' },
  { id: 'billing', path: '/billing', label: 'Billing' },
  { id: 'grants', path: '/grants', label: 'Connected applications' },
] as const;
export type ConsoleSection = (typeof SECTIONS)[number]['id'];

export function layout(context: PageContext, title: string, content: string): string {
  const { path, signedIn } = context;
  const nav = signedIn
    ? `<nav aria-label="Console">${SECTIONS.map((section) => `<a href="${path}${section.path}"${context.current === section.id ? ' aria-current="page"' : ''}>${section.label}</a>`).join('')}</nav>
<div class="who"><span title="${escape(signedIn.organizationName)}">Signed in to <strong>${escape(signedIn.organizationName)}</strong></span>
<form method="post" action="${path}/sign-out"><input type="hidden" name="csrf_token" value="${escape(signedIn.csrfToken)}"><button type="submit" class="link-button">Sign out</button></form></div>`
    : '<nav aria-label="Console"></nav>';
  return pageShell({
    title: `${title} — Cellgate Console`,
    stylesheet: `${path}/console.css`,
    scripts: (context.scripts ?? []).map((script) => `${path}/${script}`),
    brand: { href: `${path}/cells`, label: 'Console' },
    nav,
    content,
  });
}

/**
 * The HTML document around every console page, the organization's and the operator's: head
 * (favicon, stylesheet, scripts), skip link, the bar with its brand and navigation, and main.
 */
export function pageShell(page: {
  title: string;
  stylesheet: string;
  scripts: string[];
  brand: { href: string; label: string };
  nav: string;
  content: string;
  bodyClass?: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escape(page.title)}</title>
${FAVICON_LINK}
<link rel="stylesheet" href="${page.stylesheet}">
${page.scripts.map((src) => `<script type="module" src="${src}"></script>`).join('\n')}
</head>
<body${page.bodyClass ? ` class="${page.bodyClass}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="bar"><div class="bar-inner">
<a class="brand" href="${page.brand.href}">Cellgate <span>${page.brand.label}</span></a>
${page.nav}
</div></header>
<main id="main" tabindex="-1">
${page.content}
</main>
</body>
</html>
`;
}

/** A text input with its label, hint and error (the error is announced with the field). */
export function field(options: {
  id: string;
  name: string;
  label: string;
  type: string;
  value?: string;
  hint?: string;
  error?: string;
  attributes?: string;
  /** Not required (a search field, an optional setting). */
  optional?: boolean;
}): string {
  const described = [options.hint ? `${options.id}-hint` : '', options.error ? `${options.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return `<div class="field">
<label for="${options.id}">${escape(options.label)}</label>
${options.hint ? `<span class="hint" id="${options.id}-hint">${escape(options.hint)}</span>` : ''}
<input id="${options.id}" name="${options.name}" type="${options.type}" value="${escape(options.value ?? '')}"${options.optional ? '' : ' required'}${described ? ` aria-describedby="${described}"` : ''}${options.error ? ' aria-invalid="true" autofocus' : ''} ${options.attributes ?? ''}>
${options.error ? `<p class="field-error" id="${options.id}-error">${escape(options.error)}</p>` : ''}
</div>`;
}

export const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;

/**
 * The answer to a question asked before a change (delete, revoke, rotate): the button that makes
 * it, red unless `tone` says otherwise, and the way back. `action` and `keep.href` are paths the
 * console built (already encoded).
 */
export function confirmForm(options: {
  action: string;
  csrfToken: string;
  confirm: string;
  keep: { href: string; text: string };
  tone?: 'danger' | 'primary';
}): string {
  return `<form method="post" action="${options.action}">
${hidden('csrf_token', options.csrfToken)}
<div class="actions">
<button type="submit" class="${options.tone ?? 'danger'}">${escape(options.confirm)}</button>
<a class="button secondary" href="${options.keep.href}">${escape(options.keep.text)}</a>
</div>
</form>`;
}

/** A select with its label, hint and error; `choices` are [value, label] pairs. */
export function selectField(options: {
  id: string;
  name: string;
  label: string;
  value?: string;
  choices: readonly (readonly [string, string])[];
  hint?: string;
  error?: string;
}): string {
  const described = [options.hint ? `${options.id}-hint` : '', options.error ? `${options.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const choices = options.choices
    .map(
      ([value, label]) =>
        `<option value="${escape(value)}"${value === (options.value ?? '') ? ' selected' : ''}>${escape(label)}</option>`,
    )
    .join('');
  return `<div class="field">
<label for="${options.id}">${escape(options.label)}</label>
${options.hint ? `<span class="hint" id="${options.id}-hint">${escape(options.hint)}</span>` : ''}
<select id="${options.id}" name="${options.name}"${described ? ` aria-describedby="${described}"` : ''}${options.error ? ' aria-invalid="true" autofocus' : ''}>${choices}</select>
${options.error ? `<p class="field-error" id="${options.id}-error">${escape(options.error)}</p>` : ''}
</div>`;
}
