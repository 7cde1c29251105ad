// The console's HTML, server-rendered: every value is escaped; forms work without JavaScript;
// inputs have labels, errors are tied to their field (aria-describedby), and focus is visible.
import { html, join, type Html, type HtmlValue } from '../../lib/html.ts';
import type { OAuthService } from '../oauth/service.ts';
import { nextPage, postButton } from './account/shared.ts';
import { confirmForm, facts, field, hidden, layout, messageCard, type PageContext } from './layout.ts';
import { dataTable } from './data-table.ts';
import { time } from './conversations/format.ts';
import type { SignedInContext } from './guard.ts';
import { codeSentLead } from './mail-notice.ts';

const SCOPE_WORDS: Record<string, string> = {
  'cells:read': 'See your cells (phone lines) and their status',
  'cells:write': 'Create, change and release cells',
  'messages:read': 'Read your messages and conversations',
  'messages:send': 'Send text messages from your cells',
  'events:read': 'Receive your events, including incoming messages',
  'webhooks:write': 'Create and change webhook endpoints',
  'billing:read': 'See your billing, balance and payments',
  'billing:write': 'Make payments and change your billing tier',
  'usage:read': 'See your usage records',
};

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
/** Whether sign-in's and sign-up's email field holds something like an address (the operation checks it too). */
export const looksLikeEmail = (email: string) => email.length <= 254 && EMAIL.test(email);
export const EMAIL_ERROR = 'Enter an email address, like name@example.com.';

export const scopeWords = (scope: string) => SCOPE_WORDS[scope] ?? scope;

export function signInPage(context: PageContext, form: { email?: string; next?: string; error?: string }): Html {
  return layout(
    context,
    form.error ? 'Error: Sign in' : 'Sign in',
    html`<div class="card">
<h1>Sign in to the console</h1>
<p class="lead">Enter the email address of your Cellgate organization. We will email you a 6-digit code.</p>
<form method="post" action="${context.path}/sign-in" novalidate>
${field({ id: 'email', name: 'email', label: 'Email address', type: 'email', value: form.email, error: form.error, attributes: html`autocomplete="email" spellcheck="false" maxlength="254"` })}
${form.next ? hidden('next', form.next) : ''}
<button type="submit" class="primary">Email me a code</button>
</form>
<p class="small after">No organization yet? <a href="${context.path}/sign-up">Sign up</a>.</p>
</div>`,
  );
}

export function codePage(
  context: PageContext,
  form: { email: string; next?: string; error?: string; mailed: boolean },
): Html {
  return layout(
    context,
    form.error ? 'Error: Enter your code' : 'Enter your code',
    html`<div class="card">
<h1>Check your email</h1>
${codeSentLead(form.email, { mailed: form.mailed }, true)}
<form method="post" action="${context.path}/sign-in/code" novalidate>
${field({ id: 'code', name: 'code', label: 'Sign-in code', type: 'text', hint: 'The 6 digits from the email.', error: form.error, attributes: html`class="code-input" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" spellcheck="false"` })}
${hidden('email', form.email)}
${form.next ? hidden('next', form.next) : ''}
<button type="submit" class="primary">Sign in</button>
</form>
<p class="small after">No email? <a href="${context.path}/sign-in${form.next ? `?next=${encodeURIComponent(form.next)}` : ''}">Use another address or send a new code</a>.</p>
</div>`,
  );
}

type Described = Awaited<ReturnType<OAuthService['describeRequest']>>;

export function consentPage(
  context: SignedInContext,
  request: Described & { resourceName: string },
  action: string,
): Html {
  const name = request.client_name ?? request.client_id;
  const { organizationName, organizationEmail, csrfToken } = context.signedIn;
  return layout(
    context,
    `Authorize ${name}`,
    html`<div class="card">
<h1>Allow <span class="client-name">${name}</span> to access ${organizationName}?</h1>
<p class="lead">After you decide, you will be sent back to <strong>${request.redirect_host}</strong>.</p>
<h2 id="scopes-heading">It asks to</h2>
<ul class="scopes" aria-labelledby="scopes-heading">
${join(
  request.scopes.map((scope) => html`<li>${scopeWords(scope)} <span class="tag mono">${scope}</span></li>`),
  '\n',
)}
</ul>
<h2>Details</h2>
${facts([
  ['Access to', html`${request.resourceName} <span class="mono">${request.resource}</span>`],
  ['Returns to', html`<span class="mono">${request.redirect_uri}</span>`],
  ['Client ID', html`<span class="mono">${request.client_id}</span>`],
  ['Organization', `${organizationName} (${organizationEmail})`],
])}
<p class="small">The application chose its own name; Cellgate does not verify it. Approve only if you trust <strong>${request.redirect_host}</strong>. You can revoke access at any time under Connected applications.</p>
<form method="post" action="${action}">
${hidden('request_id', request.id)}
${hidden('csrf_token', csrfToken)}
<div class="actions">
<button type="submit" name="approve" value="true" class="primary">Approve</button>
<button type="submit" name="approve" value="false" class="secondary">Deny</button>
</div>
</form>
</div>`,
  );
}

type GrantView = Awaited<ReturnType<OAuthService['listGrants']>>['grants'][number];

export function grantsPage(
  context: SignedInContext,
  grants: GrantView[],
  options: { nextCursor: string | null; revoked: boolean },
): Html {
  const name = (grant: GrantView) => grant.client_name ?? grant.client_id;
  const table = dataTable<GrantView>({
    caption: `Applications you allowed to act for ${context.signedIn.organizationName}. Revoking stops their tokens at once.`,
    columns: [
      {
        label: 'Application',
        value: (grant) => html`<strong>${name(grant)}</strong><br><span class="small mono">${grant.client_id}</span>`,
      },
      {
        label: 'Scopes',
        value: (grant) =>
          grant.scopes.map((scope) => html`<span class="tag mono" title="${scopeWords(scope)}">${scope}</span>`),
      },
      { label: 'Resource', className: 'mono', value: (grant) => grant.resource },
      { label: 'Granted', value: (grant) => time(grant.created_at) },
      {
        label: 'Action',
        hiddenLabel: true,
        value: (grant) =>
          postButton(context, `${context.path}/grants/${encodeURIComponent(grant.id)}/revoke`, 'Revoke', {
            className: 'danger',
            ariaLabel: `Revoke access of ${name(grant)}`,
          }),
      },
    ],
    rows: grants,
    rowHeader: false,
    empty: 'No application has access to this organization.',
    more: nextPage(`${context.path}/grants`, options.nextCursor, 'More applications'),
  });
  return layout(
    { ...context, current: 'grants' },
    'Connected applications',
    html`<div class="card wide">
<h1>Connected applications</h1>
${options.revoked && html`<p class="notice ok" role="status">Access revoked. The application's tokens no longer work.</p>`}
${table}
</div>`,
  );
}

/**
 * The question asked before a change that cannot be undone (release a cell, delete a pod): what it
 * does (`explain`, HTML), the button that does it, and the way back.
 */
export function confirmationPage(
  context: SignedInContext,
  options: {
    title: string;
    /** Above the heading (a breadcrumb), HTML. */
    lead?: Html;
    explain: HtmlValue;
    action: string;
    confirm: string;
    keep: { href: string; text: string };
  },
): Html {
  return layout(
    context,
    options.title,
    html`<div class="card">
${options.lead ? html`${options.lead}\n` : ''}<h1>${options.title}</h1>
<p>${options.explain}</p>
${confirmForm({ ...options, csrfToken: context.signedIn.csrfToken })}
</div>`,
  );
}

/** A page that tells what happened and where to go next (errors, expired requests). */
export function messagePage(
  context: PageContext,
  title: string,
  message: string,
  link?: { href: string; text: string },
): Html {
  return layout(context, title, messageCard(title, message, link));
}

/** The 404 page of a cell id that is not the organization's (the conversations and messages pages). */
export const cellNotFoundPage = (context: PageContext, link: { href: string; text: string }): Html =>
  messagePage(
    context,
    'Cell not found',
    'This cell does not exist, was released, or belongs to another organization.',
    link,
  );
