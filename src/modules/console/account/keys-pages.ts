// The API keys section: the organization's active keys, the create form (the new key is shown
// once, on the page its post redirects to) and the confirmation page of a revoke.
import { html, type Html } from '../../../lib/html.ts';
import type { keyView } from '../../organizations/service.ts';
import type { SignedInContext } from '../guard.ts';
import { confirmForm, field } from '../layout.ts';
import { dataTable } from '../data-table.ts';
import { csrfField, nextPage, revealOnce, sectionPage, when } from './shared.ts';

type KeyView = ReturnType<typeof keyView>;

export const KEY_NAME_MAX = 100;

const nameOf = (key: KeyView) => key.name ?? 'Unnamed key';
const revokePath = (context: SignedInContext, key: KeyView) =>
  `${context.path}/keys/${encodeURIComponent(key.id)}/revoke`;

function keysTable(context: SignedInContext, keys: KeyView[], nextCursor: string | null): Html {
  return dataTable({
    caption: `Active API keys of ${context.signedIn.organizationName}, newest first. Only the first characters of a key are kept readable.`,
    columns: [
      { label: 'Name', value: (key) => html`<strong>${nameOf(key)}</strong>` },
      { label: 'Key', className: 'mono', value: (key) => `${key.prefix}…` },
      { label: 'Created', value: (key) => when(key.created_at) },
      { label: 'Last used', value: (key) => when(key.last_used_at) },
      {
        label: 'Action',
        hiddenLabel: true,
        value: (key) =>
          html`<a class="button danger small-button" href="${revokePath(context, key)}" aria-label="Revoke the key ${nameOf(key)} (${key.prefix}…)">Revoke…</a>`,
      },
    ],
    rows: keys,
    empty: 'No active keys.',
    more: nextPage(`${context.path}/keys`, nextCursor, 'More keys'),
  });
}

export function keysPage(
  context: SignedInContext,
  keys: KeyView[],
  options: {
    nextCursor: string | null;
    notice?: Html;
    form: { name?: string; error?: string };
    created?: { name: string; secret: string };
  },
): Html {
  const reveal = options.created
    ? revealOnce({
        id: 'new-key',
        heading: `Key created: ${options.created.name}`,
        label: 'Your new API key',
        secret: options.created.secret,
        explain: "Put it in your agent's secret store; Cellgate keeps only a hash of it.",
      })
    : '';
  return sectionPage(
    context,
    options.form.error ? 'Error: API keys' : 'API keys',
    html`<h1>API keys</h1>
<p class="lead">Agents call the REST API with a key as <code>Authorization: Bearer cg_live_…</code>. Every key can do everything; rotate by creating a new key, then revoking the old one.</p>
${options.notice}
${reveal}
${keysTable(context, keys, options.nextCursor)}
<section aria-labelledby="create-key-heading">
<h2 id="create-key-heading">Create a key</h2>
<form method="post" action="${context.path}/keys" novalidate>
${csrfField(context)}
${field({ id: 'key-name', name: 'name', label: 'Key name', type: 'text', value: options.form.name, hint: `Where the key will be used, like production or support-agent (up to ${KEY_NAME_MAX} characters).`, error: options.form.error, attributes: html`maxlength="${KEY_NAME_MAX}" autocomplete="off"` })}
<button type="submit" class="primary">Create key</button>
</form>
</section>`,
  );
}

export function revokeKeyPage(context: SignedInContext, key: KeyView): Html {
  return sectionPage(
    context,
    `Revoke ${nameOf(key)}`,
    html`<h1>Revoke the key “${nameOf(key)}”?</h1>
<dl class="facts">
<dt>Key</dt><dd class="mono">${key.prefix}…</dd>
<dt>Created</dt><dd>${when(key.created_at)}</dd>
<dt>Last used</dt><dd>${when(key.last_used_at)}</dd>
</dl>
<p>Every request with this key is refused at once (401). Agents that use it stop working until they are given another key. This cannot be undone.</p>
${confirmForm({
  action: revokePath(context, key),
  csrfToken: context.signedIn.csrfToken,
  confirm: 'Revoke key',
  keep: { href: `${context.path}/keys`, text: 'Cancel' },
})}`,
  );
}
