// The API keys section: the organization's active keys, the create form (the new key is shown
// once, on the page its post redirects to) and the confirmation page of a revoke.
import { html, type Html } from '../../../lib/html.ts';
import type { OrganizationsService } from '../../organizations/service.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import { confirmForm, facts, field, postForm, section } from '../layout.ts';
import { dataTable } from '../data-table.ts';
import { nextPage, revealOnce, sectionPage, when } from './shared.ts';

type KeyPage = Awaited<ReturnType<OrganizationsService['listKeys']>>;
type KeyView = KeyPage['keys'][number];

export const KEYS_PATH = `${CONSOLE_PATH}/keys`;
export const KEY_NAME_MAX = 100;

const nameOf = (key: KeyView) => key.name ?? 'Unnamed key';
const revokePath = (key: KeyView) => `${KEYS_PATH}/${encodeURIComponent(key.id)}/revoke`;

export function keysPage(
  context: SignedInContext,
  page: KeyPage,
  options: { notice?: Html; form?: { name?: string; error?: string }; created?: { name: string; secret: string } },
): Html {
  const { form = {}, created } = options;
  const table = dataTable({
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
          html`<a class="button danger small-button" href="${revokePath(key)}" aria-label="Revoke the key ${nameOf(key)} (${key.prefix}…)">Revoke…</a>`,
      },
    ],
    rows: page.keys,
    empty: 'No active keys.',
    more: nextPage(KEYS_PATH, page.next_cursor, 'More keys'),
  });
  const reveal =
    created &&
    revealOnce({
      id: 'new-key',
      heading: `Key created: ${created.name}`,
      label: 'Your new API key',
      secret: created.secret,
      explain: "Put it in your agent's secret store; Cellgate keeps only a hash of it.",
    });
  return sectionPage(
    context,
    form.error ? 'Error: API keys' : 'API keys',
    html`<h1>API keys</h1>
<p class="lead">Agents call the REST API with a key as <code>Authorization: Bearer cg_live_…</code>. Every key can do everything; rotate by creating a new key, then revoking the old one.</p>
${options.notice}
${reveal}
${table}
${section('create-key', 'Create a key', postForm(context, { action: KEYS_PATH, button: 'Create key' }, field({ id: 'key-name', name: 'name', label: 'Key name', type: 'text', value: form.name, hint: `Where the key will be used, like production or support-agent (up to ${KEY_NAME_MAX} characters).`, error: form.error, attributes: html`maxlength="${KEY_NAME_MAX}" autocomplete="off"` })))}`,
  );
}

export const revokeKeyPage = (context: SignedInContext, key: KeyView): Html =>
  sectionPage(
    context,
    `Revoke ${nameOf(key)}`,
    html`<h1>Revoke the key “${nameOf(key)}”?</h1>
${facts([
  ['Key', html`<span class="mono">${key.prefix}…</span>`],
  ['Created', when(key.created_at)],
  ['Last used', when(key.last_used_at)],
])}
<p>Every request with this key is refused at once (401). Agents that use it stop working until they are given another key. This cannot be undone.</p>
${confirmForm({
  action: revokePath(key),
  csrfToken: context.signedIn.csrfToken,
  confirm: 'Revoke key',
  keep: { href: KEYS_PATH, text: 'Cancel' },
})}`,
  );
