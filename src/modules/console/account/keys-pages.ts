// The API keys section: the organization's active keys, the create form (the new key is shown
// once, on the page its post redirects to) and the confirmation page of a revoke.
import { html, join, type Html } from '../../../lib/html.ts';
import type { keyView } from '../../organizations/service.ts';
import type { SignedInContext } from '../guard.ts';
import { confirmForm, field } from '../layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import { csrfField, revealOnce, sectionPage, when } from './shared.ts';

export type KeyView = ReturnType<typeof keyView>;

export const KEY_NAME_MAX = 100;

const nameOf = (key: KeyView) => key.name ?? 'Unnamed key';
const revokePath = (context: SignedInContext, key: KeyView) =>
  `${context.path}/keys/${encodeURIComponent(key.id)}/revoke`;

const KEY_COLUMNS: readonly Column[] = [
  'Name',
  { label: 'Key', className: 'mono' },
  'Created',
  'Last used',
  { label: 'Action', hiddenLabel: true },
];

function keysTable(context: SignedInContext, keys: KeyView[]): Html {
  if (keys.length === 0) return html`<p>No active keys.</p>`;
  const rows = join(
    keys.map((key) =>
      tableRow(KEY_COLUMNS, [
        html`<strong>${nameOf(key)}</strong>`,
        `${key.prefix}…`,
        when(key.created_at),
        when(key.last_used_at),
        html`<a class="button danger small-button" href="${revokePath(context, key)}" aria-label="Revoke the key ${nameOf(key)} (${key.prefix}…)">Revoke…</a>`,
      ]),
    ),
    '\n',
  );
  return html`<table>
<caption>Active API keys of ${context.signedIn.organizationName}, newest first. Only the first characters of a key are kept readable.</caption>
${tableHead(KEY_COLUMNS)}
<tbody>
${rows}
</tbody>
</table>`;
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
${keysTable(context, keys)}
${options.nextCursor ? html`<p class="after"><a href="${context.path}/keys?cursor=${encodeURIComponent(options.nextCursor)}">More keys</a></p>` : ''}
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
