// The operator's webhooks (the phones' events: offline, online, battery low, unhealthy, recovered)
// as pages: the endpoints with an add form, one endpoint with its latest deliveries and its
// actions, a secret shown once, and the confirmation of a delete. Routes in webhook-routes.ts.
import { html, join, type Html } from '../../../lib/html.ts';
import { dataTable } from '../data-table.ts';
import { DEVICE_EVENT_TYPES } from '../../devices/events.ts';
import type { WebhookView } from '../../webhooks/service.ts';
import type { WebhookOperations } from '../../webhooks/operations.ts';
import type { OperatorContext } from '../../../operations/operation.ts';
import type { OutOf } from '../binder.ts';
import { nextPage, postButton, revealOnce, when } from '../account/shared.ts';
import { OPERATOR_PATH } from './http.ts';
import { postForm, sectionPage } from './layout.ts';
import { confirmForm, crumbs, facts, field, hidden, section } from '../layout.ts';
import type { OperatorSession } from './service.ts';

export const WEBHOOKS_PATH = `${OPERATOR_PATH}/webhooks`;
export const webhookPath = (id: string) => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}`;

/** What each phone event says, for the form's checkboxes. */
const EVENT_WORDS: Record<(typeof DEVICE_EVENT_TYPES)[number], string> = {
  'device.offline': 'A phone went offline (no heartbeat)',
  'device.online': 'A phone is back online',
  'device.battery_low': 'A battery runs low (below 15 %, not charging)',
  'device.unhealthy': 'A SIM looks degraded or is quarantined',
  'device.recovered': 'A phone is healthy again',
};

/** The add form as typed, with its error. */
export interface OperatorWebhookForm {
  clientId: string;
  url: string;
  eventTypes: string[];
  error?: string;
}

type Deliveries = OutOf<WebhookOperations<OperatorContext>['listWebhookDeliveries']>['deliveries'];

const eventsOf = (webhook: WebhookView) =>
  webhook.event_types.includes('*') || webhook.event_types.includes('device.*')
    ? 'Every phone event'
    : webhook.event_types.join(', ');
const stateOf = (webhook: WebhookView) =>
  webhook.enabled
    ? html`<span class="tag">Enabled</span>`
    : html`<span class="tag">Disabled</span>${webhook.disabled_reason ? html` <span class="small">${webhook.disabled_reason}</span>` : ''}`;

function addForm(session: OperatorSession, form: OperatorWebhookForm): Html {
  const boxes = join(
    DEVICE_EVENT_TYPES.map(
      (type) =>
        html`<div class="check"><input type="checkbox" id="event-${type}" name="event:${type}"${form.eventTypes.includes(type) ? ' checked' : ''}><label for="event-${type}"><span class="mono">${type}</span>: ${EVENT_WORDS[type]}</label></div>`,
    ),
    '\n',
  );
  return html`<h2 id="add-heading">Add an endpoint</h2>
${postForm(
  session,
  { action: WEBHOOKS_PATH, button: 'Add endpoint', labelledBy: 'add-heading' },
  html`${hidden('client_id', form.clientId)}
${field({ id: 'webhook-url', name: 'url', label: 'URL', type: 'url', value: form.url, hint: 'https://… where the events are posted, signed (Standard Webhooks).', error: form.error, attributes: html`maxlength="2048" autocomplete="off" spellcheck="false"` })}
<fieldset class="field"><legend>Events</legend>
<p class="hint">None checked: every phone event.</p>
${boxes}
</fieldset>`,
)}`;
}

export function webhooksPage(
  session: OperatorSession,
  view: {
    webhooks: WebhookView[];
    /** The next page's cursor, when there are more endpoints. */
    nextCursor: string | null;
    form: OperatorWebhookForm;
    notice?: Html;
    created?: { url: string; secret: string };
  },
): Html {
  const table = dataTable({
    caption: "The operator's endpoints",
    scrollId: 'webhooks-caption',
    empty: 'No endpoint yet: add one to hear of phones going offline, low batteries and SIM trouble.',
    rows: view.webhooks,
    columns: [
      { label: 'URL', value: (w) => html`<a href="${webhookPath(w.id)}" class="mono">${w.url}</a>` },
      { label: 'Events', value: eventsOf },
      { label: 'State', value: stateOf },
      { label: 'Added', value: (w) => when(w.created_at) },
    ],
    more: nextPage(WEBHOOKS_PATH, view.nextCursor, 'More endpoints'),
  });
  const reveal = view.created
    ? revealOnce({
        id: 'webhook-secret',
        heading: 'Endpoint added: its signing secret',
        label: `Signing secret for ${view.created.url}`,
        secret: view.created.secret,
        explain: 'Verify each delivery with it (the webhook-signature header, Standard Webhooks).',
      })
    : '';
  return sectionPage(
    { session, current: 'webhooks' },
    `${view.form.error ? 'Error: ' : ''}Webhooks`,
    html`<h1>Webhooks</h1>
<p class="lead">The phones' events, posted to your endpoints: a phone offline or back, a low battery, a SIM in trouble and recovered.</p>
${view.notice ?? ''}
${reveal}
${table}
${addForm(session, view.form)}`,
  );
}

export function webhookPage(
  session: OperatorSession,
  view: {
    webhook: WebhookView;
    deliveries: Deliveries;
    /** The cursor of older deliveries, when there are more. */
    nextCursor: string | null;
    notice?: Html;
    secret?: string;
  },
): Html {
  const { webhook } = view;
  const base = webhookPath(webhook.id);
  const deliveries = dataTable({
    caption: 'Deliveries, newest first',
    scrollId: 'deliveries-caption',
    empty: 'No delivery yet.',
    rows: view.deliveries,
    columns: [
      { label: 'Event', className: 'mono', value: (d) => d.event_type },
      { label: 'Status', value: (d) => d.status },
      { label: 'Attempts', numeric: true, value: (d) => d.attempts },
      { label: 'Last answer', value: (d) => d.last_status_code ?? (d.last_error || '—') },
      { label: 'Created', value: (d) => when(d.created_at) },
      {
        label: 'Action',
        hiddenLabel: true,
        value: (d) =>
          webhook.enabled ? postButton(session, `${base}/deliveries/${encodeURIComponent(d.id)}/retry`, 'Retry') : '',
      },
    ],
    more: nextPage(base, view.nextCursor, 'Older deliveries'),
  });
  const reveal = view.secret
    ? revealOnce({
        id: 'webhook-secret',
        heading: 'New signing secret',
        label: `Signing secret for ${webhook.url}`,
        secret: view.secret,
        explain: 'For 24 hours deliveries carry signatures with both the new and the previous secret.',
      })
    : '';
  return sectionPage(
    { session, current: 'webhooks' },
    `Webhook ${webhook.url}`,
    html`${crumbs([[WEBHOOKS_PATH, 'Webhooks']], html`<span class="mono">${webhook.url}</span>`)}
<h1>Endpoint <span class="mono">${webhook.url}</span></h1>
${view.notice ?? ''}
${reveal}
${facts([
  ['Events', eventsOf(webhook)],
  ['State', stateOf(webhook)],
  ['Added', when(webhook.created_at)],
])}
${section('deliveries', 'Deliveries', deliveries)}
<section aria-labelledby="actions-heading">
<h2 id="actions-heading">Actions</h2>
<div class="actions">
${postButton(session, `${base}/enabled`, webhook.enabled ? 'Disable' : 'Enable', { fields: { enabled: webhook.enabled ? 'false' : 'true' } })}
${postButton(session, `${base}/rotate`, 'Rotate the signing secret')}
<a class="button danger small-button" href="${base}/delete">Delete</a>
</div>
</section>`,
  );
}

export function deleteWebhookPage(session: OperatorSession, webhook: WebhookView): Html {
  return sectionPage(
    { session, current: 'webhooks' },
    'Delete the endpoint?',
    html`<h1>Delete <span class="mono">${webhook.url}</span>?</h1>
<p>No more phone events are sent to it, and its queued deliveries are dropped. This cannot be undone.</p>
${confirmForm({
  action: `${webhookPath(webhook.id)}/delete`,
  csrfToken: session.csrfToken,
  confirm: 'Delete endpoint',
  keep: { href: webhookPath(webhook.id), text: 'Keep it' },
})}`,
  );
}
