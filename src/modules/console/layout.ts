// The console's page shell (head, bar, navigation, main) and its form pieces, rendered with
// `html` (every value escaped); the navigation marks the current page with aria-current.
import { html, join, type Html, type HtmlValue } from '../../lib/html.ts';
import { FAVICON_LINK } from '../docs/favicon.ts';
import { CONSOLE_PATH } from './http.ts';

/** Where the Copy button's script is served (routes.ts); a page with a secret loads it. */
export const COPY_SCRIPT = `${CONSOLE_PATH}/copy.js`;

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
  { id: 'cells', label: 'Cells' },
  { id: 'pods', label: 'Pods' },
  { id: 'messages', label: 'Messages' },
  { id: 'codes', label: 'Codes' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'keys', label: 'API keys' },
  { id: 'billing', label: 'Billing' },
  { id: 'grants', label: 'Connected applications' },
] as const;
export type ConsoleSection = (typeof SECTIONS)[number]['id'];

export function layout(context: PageContext, title: string, content: Html): Html {
  const { path, signedIn } = context;
  const nav = signedIn
    ? html`<nav aria-label="Console">${SECTIONS.map((section) => html`<a href="${path}/${section.id}"${context.current === section.id ? html` aria-current="page"` : ''}>${section.label}</a>`)}</nav>
<div class="who"><span title="${signedIn.organizationName}">Signed in to <strong>${signedIn.organizationName}</strong></span>
<form method="post" action="${path}/sign-out">${hidden('csrf_token', signedIn.csrfToken)}<button type="submit" class="link-button">Sign out</button></form></div>`
    : html`<nav aria-label="Console"></nav>`;
  return pageShell({
    title: `${title} — Cellgate Console`,
    stylesheet: `${path}/console.css`,
    scripts: (context.scripts ?? []).map((script) => `${path}/${script}`),
    brand: { href: `${path}/cells`, label: 'Console' },
    nav,
    content,
  });
}

/** Whether a page shows a secret with its Copy button (secretField), which needs copy.js. */
const hasSecretField = (content: Html) => content.toString().includes(' data-copy="');

/** The HTML document around every console page (the organization's and the operator's): head, skip link, bar, main. */
export function pageShell(page: {
  title: string;
  stylesheet: string;
  scripts: string[];
  brand: { href: string; label: string };
  nav: Html;
  content: Html;
  bodyClass?: string;
}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${page.title}</title>
${FAVICON_LINK}
<link rel="stylesheet" href="${page.stylesheet}">
${join(
  [...(hasSecretField(page.content) ? [COPY_SCRIPT] : []), ...page.scripts].map(
    (src) => html`<script type="module" src="${src}"></script>`,
  ),
  '\n',
)}
</head>
<body${page.bodyClass ? html` class="${page.bodyClass}"` : ''}>
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

/** What a field shows around its control: its label, a hint and an error (announced with it). */
type FieldFrame = { id: string; label: string; hint?: string; error?: string };

/** A field's label, hint and error around its control; `aria` ties the control to the hint and error. */
export function framed(options: FieldFrame, control: (aria: Html) => Html): Html {
  const { id, hint, error } = options;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  const aria = html`${described && html` aria-describedby="${described}"`}${error && html` aria-invalid="true" autofocus`}`;
  return html`<div class="field">
<label for="${id}">${options.label}</label>
${hint ? html`<span class="hint" id="${id}-hint">${hint}</span>` : ''}
${control(aria)}
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}
</div>`;
}

/** A text area with its label, hint and error (as `field`); `attributes` are more of its own. */
export const textArea = (options: FieldFrame & { name: string; value?: string; rows?: number; attributes?: Html }) =>
  framed(
    options,
    (aria) =>
      html`<textarea id="${options.id}" name="${options.name}" rows="${options.rows ?? 3}"${options.attributes && html` ${options.attributes}`}${aria}>${options.value ?? ''}</textarea>`,
  );

/** A text input with its label, hint and error. */
export function field(
  options: FieldFrame & {
    name: string;
    type: string;
    value?: string;
    /** More attributes of the input (`html` so that their quotes stay markup). */
    attributes?: Html;
    /** Not required (a search field, an optional setting). */
    optional?: boolean;
  },
): Html {
  return framed(
    options,
    (aria) =>
      html`<input id="${options.id}" name="${options.name}" type="${options.type}" value="${options.value ?? ''}"${options.optional ? '' : ' required'}${aria} ${options.attributes ?? ''}>`,
  );
}

/** A secret shown once, in a read-only field with a Copy button (shown by copy.js) and a status line. */
export function secretField(options: { id: string; label: string; secret: string }): Html {
  return html`<label for="${options.id}">${options.label}</label>
<div class="secret-row"><input id="${options.id}" class="secret mono" type="text" value="${options.secret}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="secondary" data-copy="${options.id}" hidden>Copy<span class="visually-hidden"> ${options.label}</span></button></div>
<p class="small copied" id="${options.id}-copied" role="status"></p>`;
}

/** A message page's content: what happened and, when there is one, where to go next. */
export const messageCard = (title: string, message: string, link?: { href: string; text: string }) =>
  html`<div class="card">
<h1>${title}</h1>
<p>${message}</p>
${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}
</div>`;

/** A refusal of a form as a whole, announced (nothing when there is none). */
export const errorNotice = (text: string | undefined) =>
  text ? html`<div class="notice error" role="alert"><p>${text}</p></div>` : html``;

/** A list page's filter form (GET, so the filters are in the URL the page can be shared by). */
export const filterForm = (
  action: string,
  fields: HtmlValue,
) => html`<form method="get" action="${action}" class="filters">
${fields}
<button type="submit" class="secondary">Show</button>
</form>`;

export const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;

/** Who posts a form, carrying its session's CSRF token: a signed-in page's context, or the operator's session. */
export type Poster = { signedIn: { csrfToken: string } } | { csrfToken: string };

export const csrfField = (poster: Poster) =>
  hidden('csrf_token', 'signedIn' in poster ? poster.signedIn.csrfToken : poster.csrfToken);

/** A form posted with the session's CSRF token: its fields, its button (primary unless `tone`), and a way back. */
export const postForm = (
  poster: Poster,
  options: { action: string; button: string; tone?: string; cancel?: string; className?: string; labelledBy?: string },
  content: HtmlValue = '',
) =>
  html`<form method="post" action="${options.action}"${options.className ? html` class="${options.className}"` : ''} novalidate${options.labelledBy ? html` aria-labelledby="${options.labelledBy}"` : ''}>
${csrfField(poster)}
${content}
<div class="actions"><button type="submit" class="${options.tone ?? 'primary'}">${options.button}</button>${options.cancel ? html` <a class="button secondary" href="${options.cancel}">Cancel</a>` : ''}</div>
</form>`;

/** A section of a page, named by its heading; `id` is its anchor. */
export const section = (id: string, title: string, content: HtmlValue) =>
  html`<section id="${id}" aria-labelledby="${id}-heading">
<h2 id="${id}-heading">${title}</h2>
${content}
</section>`;

/** The answer to a question asked before a change (delete, revoke): its button (red unless `tone`), and the way back. */
export function confirmForm(options: {
  action: string;
  csrfToken: string;
  confirm: string;
  keep: { href: string; text: string };
  tone?: 'danger' | 'primary';
}): Html {
  return html`<form method="post" action="${options.action}">
${hidden('csrf_token', options.csrfToken)}
<div class="actions">
<button type="submit" class="${options.tone ?? 'danger'}">${options.confirm}</button>
<a class="button secondary" href="${options.keep.href}">${options.keep.text}</a>
</div>
</form>`;
}

/** A select with its label, hint and error; `choices` are [value, label] pairs. */
export function selectField(
  options: FieldFrame & { name: string; value?: string; choices: readonly (readonly [string, string])[] },
): Html {
  const choices = options.choices.map(
    ([value, label]) =>
      html`<option value="${value}"${value === (options.value ?? '') ? ' selected' : ''}>${label}</option>`,
  );
  return framed(options, (aria) => html`<select id="${options.id}" name="${options.name}"${aria}>${choices}</select>`);
}

/** The breadcrumb of a page: the links above it, then the page itself (`current`). */
export const crumbs = (links: readonly (readonly [string, string])[], current: HtmlValue) =>
  html`<nav aria-label="Breadcrumb" class="crumbs"><ol>${links.map(([href, text]) => html`<li><a href="${href}">${text}</a></li>`)}<li><span aria-current="page">${current}</span></li></ol></nav>`;

/** Facts (term and value) as a description list, as a detail page shows them; a false entry is left out. */
export const facts = (pairs: readonly (readonly [string, HtmlValue] | false)[], className = 'facts') =>
  html`<dl class="${className}">
${join(
  pairs.filter((pair) => pair !== false).map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`),
  '\n',
)}
</dl>`;
