// The console's HTML, server-rendered: every value is escaped; forms work without JavaScript;
// inputs have labels, errors are tied to their field (aria-describedby), and focus is visible.
import { confirmForm, escape, field, hidden, layout, type PageContext } from './layout.ts';
import type { SignedInContext } from './guard.ts';
import { signInCodeLead } from './mail-notice.ts';

export { escape, type PageContext };

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

export const scopeWords = (scope: string) => SCOPE_WORDS[scope] ?? scope;

export function signInPage(context: PageContext, form: { email?: string; next?: string; error?: string }): string {
  const title = form.error ? 'Error: Sign in' : 'Sign in';
  return layout(
    context,
    title,
    `<div class="card">
<h1>Sign in to the console</h1>
<p class="lead">Enter the email address of your Cellgate organization. We will email you a 6-digit code.</p>
<form method="post" action="${context.path}/sign-in" novalidate>
${field({ id: 'email', name: 'email', label: 'Email address', type: 'email', value: form.email, error: form.error, attributes: 'autocomplete="email" spellcheck="false" maxlength="254"' })}
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
): string {
  const title = form.error ? 'Error: Enter your code' : 'Enter your code';
  return layout(
    context,
    title,
    `<div class="card">
<h1>Check your email</h1>
${signInCodeLead(form.email, form.mailed)}
<form method="post" action="${context.path}/sign-in/code" novalidate>
${field({ id: 'code', name: 'code', label: 'Sign-in code', type: 'text', hint: 'The 6 digits from the email.', error: form.error, attributes: 'class="code-input" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" spellcheck="false"' })}
${hidden('email', form.email)}
${form.next ? hidden('next', form.next) : ''}
<button type="submit" class="primary">Sign in</button>
</form>
<p class="small after">No email? <a href="${context.path}/sign-in${form.next ? `?next=${encodeURIComponent(form.next)}` : ''}">Use another address or send a new code</a>.</p>
</div>`,
  );
}

export interface ConsentView {
  id: string;
  clientId: string;
  clientName: string | null;
  redirectHost: string;
  redirectUri: string;
  scopes: string[];
  resource: string;
  resourceName: string;
  expiresAt: string;
}

export function consentPage(
  context: PageContext & { signedIn: NonNullable<PageContext['signedIn']> },
  request: ConsentView,
  action: string,
): string {
  const name = request.clientName ?? request.clientId;
  return layout(
    context,
    `Authorize ${name}`,
    `<div class="card">
<h1>Allow <span class="client-name">${escape(name)}</span> to access ${escape(context.signedIn.organizationName)}?</h1>
<p class="lead">After you decide, you will be sent back to <strong>${escape(request.redirectHost)}</strong>.</p>
<h2 id="scopes-heading">It asks to</h2>
<ul class="scopes" aria-labelledby="scopes-heading">
${request.scopes.map((scope) => `<li>${escape(scopeWords(scope))} <span class="tag mono">${escape(scope)}</span></li>`).join('\n')}
</ul>
<h2>Details</h2>
<dl class="facts">
<dt>Access to</dt><dd>${escape(request.resourceName)} <span class="mono">${escape(request.resource)}</span></dd>
<dt>Returns to</dt><dd class="mono">${escape(request.redirectUri)}</dd>
<dt>Client ID</dt><dd class="mono">${escape(request.clientId)}</dd>
<dt>Organization</dt><dd>${escape(context.signedIn.organizationName)} (${escape(context.signedIn.organizationEmail)})</dd>
</dl>
<p class="small">The application chose its own name; Cellgate does not verify it. Approve only if you trust <strong>${escape(request.redirectHost)}</strong>. You can revoke access at any time under Connected applications.</p>
<form method="post" action="${escape(action)}">
${hidden('request_id', request.id)}
${hidden('csrf_token', context.signedIn.csrfToken)}
<div class="actions">
<button type="submit" name="approve" value="true" class="primary">Approve</button>
<button type="submit" name="approve" value="false" class="secondary">Deny</button>
</div>
</form>
</div>`,
  );
}

export interface GrantView {
  id: string;
  client_id: string;
  client_name: string | null;
  scopes: string[];
  resource: string;
  created_at: string;
}

export function grantsPage(
  context: PageContext & { signedIn: NonNullable<PageContext['signedIn']> },
  grants: GrantView[],
  options: { nextCursor: string | null; revoked: boolean },
): string {
  const rows = grants
    .map((grant) => {
      const name = grant.client_name ?? grant.client_id;
      return `<tr>
<td><strong>${escape(name)}</strong><br><span class="small mono">${escape(grant.client_id)}</span></td>
<td>${grant.scopes.map((scope) => `<span class="tag mono" title="${escape(scopeWords(scope))}">${escape(scope)}</span>`).join('')}</td>
<td class="mono">${escape(grant.resource)}</td>
<td><time datetime="${escape(grant.created_at)}">${escape(grant.created_at.slice(0, 16).replace('T', ' '))} UTC</time></td>
<td><form method="post" action="${context.path}/grants/${encodeURIComponent(grant.id)}/revoke">${hidden('csrf_token', context.signedIn.csrfToken)}<button type="submit" class="danger" aria-label="Revoke access of ${escape(name)}">Revoke</button></form></td>
</tr>`;
    })
    .join('\n');
  const table =
    grants.length === 0
      ? '<p>No application has access to this organization.</p>'
      : `<table>
<caption>Applications you allowed to act for ${escape(context.signedIn.organizationName)}. Revoking stops their tokens at once.</caption>
<thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Resource</th><th scope="col">Granted</th><th scope="col">Action</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
  return layout(
    { ...context, current: 'grants' },
    'Connected applications',
    `<div class="card wide">
<h1>Connected applications</h1>
${options.revoked ? '<p class="notice ok" role="status">Access revoked. The application\'s tokens no longer work.</p>' : ''}
${table}
${options.nextCursor ? `<p class="after"><a href="${context.path}/grants?cursor=${encodeURIComponent(options.nextCursor)}">More applications</a></p>` : ''}
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
    lead?: string;
    explain: string;
    action: string;
    confirm: string;
    keep: { href: string; text: string };
  },
): string {
  return layout(
    context,
    options.title,
    `<div class="card">
${options.lead ? `${options.lead}\n` : ''}<h1>${escape(options.title)}</h1>
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
): string {
  return layout(
    context,
    title,
    `<div class="card">
<h1>${escape(title)}</h1>
<p>${escape(message)}</p>
${link ? `<p><a href="${escape(link.href)}">${escape(link.text)}</a></p>` : ''}
</div>`,
  );
}

/** The 404 page of a cell id that is not the organization's (the conversations and messages pages). */
export const cellNotFoundPage = (context: PageContext, link: { href: string; text: string }): string =>
  messagePage(
    context,
    'Cell not found',
    'This cell does not exist, was released, or belongs to another organization.',
    link,
  );
