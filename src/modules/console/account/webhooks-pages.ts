// The webhooks section: the organization's endpoints with their recent deliveries (a Retry button
// on each failed one), an endpoint's full delivery log, and the form that adds an endpoint.
import { html, join, type Html } from '../../../lib/html.ts';
import { MAX_URL_LENGTH } from '../../../lib/ssrf.ts';
import type { WebhookOperations } from '../../webhooks/operations.ts';
import type { WebhooksService, WebhookView } from '../../webhooks/service.ts';
import type { OutOf } from '../binder.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import { confirmForm, crumbs, facts, field, hidden, postForm, section } from '../layout.ts';
import { dataTable } from '../data-table.ts';
import { choiceGroup, nextPage, postButton, revealOnce, sectionPage, stateTag, when } from './shared.ts';

type DeliveryView = OutOf<WebhookOperations['listWebhookDeliveries']>['deliveries'][number];

export interface EndpointForm {
  /** The add form's client_id (an edit has none). */
  clientId?: string;
  url?: string;
  eventTypes?: string[];
  errors?: { url?: string; event_types?: string };
}

/** The filters the form offers: everything, or whole groups (exact types stay an API feature). */
const FILTER_WORDS: Record<string, string> = {
  '*': 'All events',
  'message.*': 'Messages: sent, delivered, failed, received',
  'cell.*': 'Cells: created, updated, deleted, online, offline',
  'cycle.*': 'Pod cycle jobs: completed, failed',
  'billing.*': 'Billing: payments and status changes',
  'webhook.*': 'Webhooks: an endpoint disabled after failures',
};
export const FORM_EVENT_FILTERS = Object.keys(FILTER_WORDS);

const STATUS: Record<DeliveryView['status'], Parameters<typeof stateTag>> = {
  succeeded: ['ok', 'Delivered'],
  pending: ['idle', 'Queued'],
  retrying: ['warn', 'Failed, retrying'],
  failed: ['bad', 'Gave up'],
};

export const WEBHOOKS_PATH = `${CONSOLE_PATH}/webhooks`;
/** An endpoint's page, or one delivery's. */
export const endpointPath = (webhookId: string, deliveryId?: string) =>
  `${WEBHOOKS_PATH}/${encodeURIComponent(webhookId)}${deliveryId ? `/deliveries/${encodeURIComponent(deliveryId)}` : ''}`;
const WEBHOOKS_CRUMB = [WEBHOOKS_PATH, 'Webhooks'] as const;
/** The breadcrumb of an endpoint's pages: Webhooks, the endpoint, the page (none: the endpoint's own). */
const endpointCrumbs = (webhook: WebhookView, current?: string) =>
  current
    ? crumbs([WEBHOOKS_CRUMB, [endpointPath(webhook.id), webhook.url]], current)
    : crumbs([WEBHOOKS_CRUMB], webhook.url);

/** An endpoint's signing secret, shown once (added, rotated). */
const secretOnce = (heading: string, secret: string, explain: string) =>
  revealOnce({ id: 'new-secret', heading, label: 'Signing secret', secret, explain });

function response(delivery: DeliveryView): Html {
  if (delivery.last_status_code !== null) return html`<span class="mono">HTTP ${delivery.last_status_code}</span>`;
  if (delivery.last_error) return html`<span class="small">${delivery.last_error.slice(0, 120)}</span>`;
  return html`<span class="small">No attempt yet</span>`;
}

function retryCell(context: SignedInContext, webhook: WebhookView, delivery: DeliveryView, back: string): Html {
  if (delivery.status !== 'failed' && delivery.status !== 'retrying') return html``;
  if (!webhook.enabled) return html`<span class="small">Enable the endpoint to retry</span>`;
  return postButton(context, `${endpointPath(webhook.id, delivery.id)}/retry`, 'Retry', {
    ariaLabel: `Retry the ${delivery.event_type} delivery ${delivery.id}`,
    fields: { next: back },
  });
}

/** A table of deliveries of one endpoint; `back` is where a retry returns to. */
function deliveriesTable(
  context: SignedInContext,
  webhook: WebhookView,
  deliveries: DeliveryView[],
  options: { back: string; caption: string; more?: { href: string; label: string } | null },
): Html {
  const table = dataTable<DeliveryView>({
    ...options,
    columns: [
      {
        label: 'Event',
        value: (d) =>
          html`<a class="mono" href="${endpointPath(webhook.id, d.id)}" aria-label="The ${d.event_type} delivery ${d.id}: request and responses">${d.event_type}</a><br><span class="small mono">${d.event_id}</span>`,
      },
      {
        label: 'Status',
        value: (d) =>
          html`${stateTag(...STATUS[d.status])}${d.status === 'retrying' && d.next_attempt_at && html`<br><span class="small">Next try ${when(d.next_attempt_at)}</span>`}`,
      },
      { label: 'Attempts', value: (d) => d.attempts },
      { label: 'Last response', value: response },
      { label: 'Time', value: (d) => when(d.created_at) },
      { label: 'Action', hiddenLabel: true, value: (d) => retryCell(context, webhook, d, options.back) },
    ],
    rows: deliveries,
    empty: html`<span class="small">No deliveries yet. Events of the types above will appear here.</span>`,
  });
  return html`<div class="deliveries">${table}</div>`;
}

function endpointHeader(context: SignedInContext, webhook: WebhookView, back: string, headingLevel: 'h1' | 'h2'): Html {
  const { id, url, enabled } = webhook;
  const state = enabled
    ? stateTag('ok', 'Enabled')
    : stateTag('bad', webhook.disabled_reason ? `Disabled: ${webhook.disabled_reason}` : 'Disabled');
  const toggle = postButton(context, `${endpointPath(id)}/enabled`, enabled ? 'Disable' : 'Enable', {
    ariaLabel: `${enabled ? 'Disable' : 'Enable'} the endpoint ${url}`,
    fields: { enabled: enabled ? 'false' : 'true', next: back },
  });
  const test =
    enabled &&
    postButton(context, `${endpointPath(id)}/test`, 'Send a test event', {
      ariaLabel: `Send a test event to the endpoint ${url}`,
      fields: { next: back },
    });
  return html`<div class="endpoint-head">
<${headingLevel} id="${id}-heading" class="endpoint-url mono">${url}</${headingLevel}>
${state}
</div>
${facts([
  ['Events', webhook.event_types.map((t) => html`<span class="tag mono">${t}</span>`)],
  ['Endpoint ID', html`<span class="mono">${id}</span>`],
  ['Created', when(webhook.created_at)],
  !!webhook.description && ['Description', webhook.description],
])}
<div class="row-actions">${toggle}${test}<a class="button secondary small-button" href="${endpointPath(id)}/edit" aria-label="Edit the endpoint ${url}">Edit</a><a class="button secondary small-button" href="${endpointPath(id)}/rotate" aria-label="Rotate secret of the endpoint ${url}">Rotate secret</a><a class="button danger small-button" href="${endpointPath(id)}/delete" aria-label="Delete the endpoint ${url}">Delete</a></div>`;
}

/** The add form (on the list), or an endpoint's edit form (`edit`: the endpoint). */
function endpointForm(context: SignedInContext, form: EndpointForm, edit?: WebhookView): Html {
  const chosen = new Set(form.eventTypes ?? ['*']);
  const events = choiceGroup(
    { id: 'event-types', legend: 'Events to send', error: form.errors?.event_types, type: 'checkbox' },
    FORM_EVENT_FILTERS.map((filter) => ({
      name: `event:${filter}`,
      value: 'on',
      checked: chosen.has(filter),
      label: html`${FILTER_WORDS[filter]} <span class="tag mono">${filter}</span>`,
    })),
  );
  const action = edit ? `${endpointPath(edit.id)}/edit` : WEBHOOKS_PATH;
  const button = edit ? 'Save changes' : 'Add endpoint';
  return section(
    'add-endpoint',
    edit ? 'Edit the endpoint' : 'Add an endpoint',
    postForm(
      context,
      { action, button, cancel: edit && endpointPath(edit.id) },
      html`${form.clientId && hidden('client_id', form.clientId)}
${field({ id: 'webhook-url', name: 'url', label: 'Endpoint URL', type: 'url', value: form.url, hint: 'An https URL of your receiver. It must not resolve to a private or loopback address.', error: form.errors?.url, attributes: html`maxlength="${MAX_URL_LENGTH}" spellcheck="false" autocomplete="url"` })}
${events}`,
    ),
  );
}

export function webhooksPage(
  context: SignedInContext,
  endpoints: { webhook: WebhookView; deliveries: DeliveryView[]; moreDeliveries: boolean }[],
  options: { nextCursor: string | null; notice?: Html; form: EndpointForm; created?: { url: string; secret: string } },
): Html {
  const list = endpoints.map(
    ({ webhook, deliveries, moreDeliveries }) => html`<article class="endpoint" aria-labelledby="${webhook.id}-heading">
${endpointHeader(context, webhook, WEBHOOKS_PATH, 'h2')}
${deliveriesTable(context, webhook, deliveries, { back: WEBHOOKS_PATH, caption: `Recent deliveries to ${webhook.url}, newest first` })}
${moreDeliveries && html`<p class="small"><a href="${endpointPath(webhook.id)}">All deliveries to this endpoint</a></p>`}
</article>`,
  );
  const { created } = options;
  const reveal =
    created &&
    secretOnce(
      `Endpoint added: ${created.url}`,
      created.secret,
      "Your receiver verifies each delivery's webhook-signature header with it.",
    );
  return sectionPage(
    context,
    options.form.errors ? 'Error: Webhooks' : 'Webhooks',
    html`<h1>Webhooks</h1>
<p class="lead">Cellgate POSTs every event of the chosen types to your endpoints, signed per Standard Webhooks, and retries failures for up to 5 days.</p>
${options.notice}
${reveal}
${list.length ? join(list, '\n') : html`<p>No endpoints yet. Add one below, or with <code>POST /v1/webhooks</code>.</p>`}
${options.nextCursor && html`<p class="after"><a href="${WEBHOOKS_PATH}?cursor=${encodeURIComponent(options.nextCursor)}">More endpoints</a></p>`}
${endpointForm(context, options.form)}`,
  );
}

/** One endpoint with its whole delivery log, a page at a time. */
export function endpointPage(
  context: SignedInContext,
  webhook: WebhookView,
  page: { deliveries: DeliveryView[]; next_cursor: string | null },
  notice?: Html,
): Html {
  const back = endpointPath(webhook.id);
  const more = nextPage(back, page.next_cursor, 'Older deliveries');
  return sectionPage(
    context,
    `Deliveries to ${webhook.url}`,
    html`${endpointCrumbs(webhook)}
${notice}
${endpointHeader(context, webhook, back, 'h1')}
${deliveriesTable(context, webhook, page.deliveries, { back, caption: 'Deliveries to this endpoint, newest first', more })}`,
  );
}

/** A pretty-printed JSON text, or the text as it is when it is not JSON. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One delivery: the signed request (body, and each attempt's headers) and every response. */
export function deliveryPage(
  context: SignedInContext,
  webhook: WebhookView,
  delivery: Awaited<ReturnType<WebhooksService['deliveryDetail']>>,
  notice?: Html,
): Html {
  const attempts = delivery.exchanges.map(
    (a, i) => html`<section class="attempt" aria-labelledby="attempt-${i + 1}">
<h3 id="attempt-${i + 1}">Attempt ${i + 1}, ${when(a.attempted_at)}</h3>
<h4>Request headers</h4>
${a.request_headers ? facts(Object.entries(a.request_headers), 'facts mono') : html`<p class="small">Nothing was sent (the URL was refused).</p>`}
<h4>Response</h4>
<p>${a.status_code === null ? html`<span class="small">No response: ${a.error ?? 'unknown error'}</span>` : html`<span class="mono">HTTP ${a.status_code}</span>`}</p>
${a.response_body ? html`<pre class="wrap" aria-label="Response body (the first 4 KiB)">${a.response_body}</pre>` : a.status_code !== null && html`<p class="small">Empty body.</p>`}
</section>`,
  );
  const mono = (text: string) => html`<span class="mono">${text}</span>`;
  return sectionPage(
    context,
    `Delivery ${delivery.id}`,
    html`${endpointCrumbs(webhook, `${delivery.event_type} delivery`)}
${notice}
<h1>${delivery.event_type} delivery</h1>
${facts([
  ['Status', stateTag(...STATUS[delivery.status])],
  ['Delivery ID', mono(delivery.id)],
  ['Event ID (webhook-id)', mono(delivery.event_id)],
  ['Endpoint', mono(webhook.url)],
  ['Created', when(delivery.created_at)],
])}
${retryCell(context, webhook, delivery, endpointPath(webhook.id, delivery.id))}
<h2>Request body</h2>
<pre class="wrap" aria-label="Request body">${pretty(delivery.payload)}</pre>
<h2>Attempts</h2>
${attempts.length ? join(attempts, '\n') : html`<p class="small">No attempt yet: it is queued.</p>`}`,
  );
}

/** The question before an endpoint's secret is rotated or the endpoint deleted. */
export function confirmPage(context: SignedInContext, webhook: WebhookView, action: 'rotate' | 'delete'): Html {
  const rotate = action === 'rotate';
  const title = rotate ? 'Rotate the signing secret?' : 'Delete this endpoint?';
  return sectionPage(
    context,
    title,
    html`${endpointCrumbs(webhook, rotate ? 'Rotate the secret' : 'Delete')}
<h1>${title}</h1>
<p class="mono">${webhook.url}</p>
<p>${
      rotate
        ? 'A new secret signs every delivery from now on. The current one keeps signing beside it for 24 hours, so your receiver can switch without missing a delivery. The new secret is shown once.'
        : 'No more events are sent to it, and its queued deliveries are dropped. This cannot be undone; add the URL again to receive events there.'
    }</p>
${confirmForm({
  action: `${endpointPath(webhook.id)}/${action}`,
  csrfToken: context.signedIn.csrfToken,
  confirm: rotate ? 'Rotate the secret' : 'Delete the endpoint',
  keep: { href: endpointPath(webhook.id), text: 'Cancel' },
  tone: rotate ? 'primary' : 'danger',
})}`,
  );
}

/** The new signing secret, shown once. */
export function rotatedPage(context: SignedInContext, rotated: OutOf<WebhookOperations['rotateWebhookSecret']>): Html {
  const reveal = secretOnce(
    `New signing secret of ${rotated.url}`,
    rotated.secret,
    'Give it to your receiver: it verifies the webhook-signature header with it.',
  );
  return sectionPage(
    context,
    'Signing secret rotated',
    html`${endpointCrumbs(rotated, 'Secret rotated')}
<h1>Signing secret rotated</h1>
${reveal}
<p>The previous secret keeps signing until ${when(rotated.previous_secret_expires_at)}.</p>`,
  );
}

export const editPage = (context: SignedInContext, webhook: WebhookView, form: EndpointForm) =>
  sectionPage(
    context,
    `${form.errors ? 'Error: ' : ''}Edit ${webhook.url}`,
    html`${endpointCrumbs(webhook, 'Edit')}
<h1>Edit <span class="mono">${webhook.url}</span></h1>
${endpointForm(context, form, webhook)}`,
  );
