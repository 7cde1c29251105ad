// The webhooks section: the organization's endpoints with their recent deliveries (a Retry button
// on each failed one), an endpoint's full delivery log, and the form that adds an endpoint.
import { html, join, type Html } from '../../../lib/html.ts';
import { MAX_URL_LENGTH } from '../../../lib/ssrf.ts';
import type { deliveryView } from '../../webhooks/views.ts';
import type { WebhooksService, WebhookView } from '../../webhooks/service.ts';
import type { SignedInContext } from '../guard.ts';
import { field, hidden } from '../layout.ts';
import { tableHead, tableRow, type Column } from '../data-table.ts';
import { csrfField, postButton, revealOnce, sectionPage, stateTag, when } from './shared.ts';

export type DeliveryView = ReturnType<typeof deliveryView>;
export type DeliveryDetail = Awaited<ReturnType<WebhooksService['deliveryDetail']>>;

export interface EndpointWithDeliveries {
  webhook: WebhookView;
  deliveries: DeliveryView[];
  moreDeliveries: boolean;
}

export interface EndpointForm {
  clientId: string;
  url?: string;
  eventTypes?: string[];
  errors?: { url?: string; event_types?: string };
}

/** The filters the form offers: everything, or whole groups (exact types stay an API feature). */
export const FORM_EVENT_FILTERS = ['*', 'message.*', 'cell.*', 'cycle.*', 'billing.*', 'webhook.*'];
const FILTER_WORDS: Record<string, string> = {
  '*': 'All events',
  'message.*': 'Messages: sent, delivered, failed, received',
  'cell.*': 'Cells: created, updated, deleted, online, offline',
  'cycle.*': 'Pod cycle jobs: completed, failed',
  'billing.*': 'Billing: payments and status changes',
  'webhook.*': 'Webhooks: an endpoint disabled after failures',
};

const STATUS: Record<DeliveryView['status'], [Parameters<typeof stateTag>[0], string]> = {
  succeeded: ['ok', 'Delivered'],
  pending: ['idle', 'Queued'],
  retrying: ['warn', 'Failed, retrying'],
  failed: ['bad', 'Gave up'],
};

const path = (context: SignedInContext, webhookId: string) =>
  `${context.path}/webhooks/${encodeURIComponent(webhookId)}`;

function response(delivery: DeliveryView): Html {
  if (delivery.last_status_code !== null) return html`<span class="mono">HTTP ${delivery.last_status_code}</span>`;
  if (delivery.last_error) return html`<span class="small">${delivery.last_error.slice(0, 120)}</span>`;
  return html`<span class="small">No attempt yet</span>`;
}

function retryCell(context: SignedInContext, webhook: WebhookView, delivery: DeliveryView, back: string): Html {
  if (delivery.status !== 'failed' && delivery.status !== 'retrying') return html``;
  if (!webhook.enabled) return html`<span class="small">Enable the endpoint to retry</span>`;
  return postButton(
    context,
    `${path(context, webhook.id)}/deliveries/${encodeURIComponent(delivery.id)}/retry`,
    'Retry',
    {
      ariaLabel: `Retry the ${delivery.event_type} delivery ${delivery.id}`,
      fields: { next: back },
    },
  );
}

const DELIVERY_COLUMNS: readonly Column[] = [
  'Event',
  'Status',
  'Attempts',
  'Last response',
  'Time',
  { label: 'Action', hiddenLabel: true },
];

/** A table of deliveries of one endpoint; `back` is where a retry returns to. */
export function deliveriesTable(
  context: SignedInContext,
  webhook: WebhookView,
  deliveries: DeliveryView[],
  back: string,
  caption: string,
): Html {
  if (deliveries.length === 0)
    return html`<p class="small">No deliveries yet. Events of the types above will appear here.</p>`;
  const rows = join(
    deliveries.map((d) => {
      const [kind, label] = STATUS[d.status];
      const next =
        d.status === 'retrying' && d.next_attempt_at
          ? html`<br><span class="small">Next try ${when(d.next_attempt_at)}</span>`
          : html``;
      return tableRow(DELIVERY_COLUMNS, [
        html`<a class="mono" href="${path(context, webhook.id)}/deliveries/${encodeURIComponent(d.id)}" aria-label="The ${d.event_type} delivery ${d.id}: request and responses">${d.event_type}</a><br><span class="small mono">${d.event_id}</span>`,
        html`${stateTag(kind, label)}${next}`,
        d.attempts,
        response(d),
        when(d.created_at),
        retryCell(context, webhook, d, back),
      ]);
    }),
    '\n',
  );
  return html`<table class="deliveries">
<caption>${caption}</caption>
${tableHead(DELIVERY_COLUMNS)}
<tbody>
${rows}
</tbody>
</table>`;
}

function endpointHeader(context: SignedInContext, webhook: WebhookView, back: string, headingLevel: 'h1' | 'h2'): Html {
  const state = webhook.enabled
    ? stateTag('ok', 'Enabled')
    : stateTag('bad', webhook.disabled_reason ? `Disabled: ${webhook.disabled_reason}` : 'Disabled');
  const toggle = postButton(context, `${path(context, webhook.id)}/enabled`, webhook.enabled ? 'Disable' : 'Enable', {
    ariaLabel: `${webhook.enabled ? 'Disable' : 'Enable'} the endpoint ${webhook.url}`,
    fields: { enabled: webhook.enabled ? 'false' : 'true', next: back },
  });
  const test = webhook.enabled
    ? postButton(context, `${path(context, webhook.id)}/test`, 'Send a test event', {
        ariaLabel: `Send a test event to the endpoint ${webhook.url}`,
        fields: { next: back },
      })
    : '';
  return html`<div class="endpoint-head">
<${headingLevel} id="${webhook.id}-heading" class="endpoint-url mono">${webhook.url}</${headingLevel}>
${state}
</div>
<dl class="facts">
<dt>Events</dt><dd>${webhook.event_types.map((t) => html`<span class="tag mono">${t}</span>`)}</dd>
<dt>Endpoint ID</dt><dd class="mono">${webhook.id}</dd>
<dt>Created</dt><dd>${when(webhook.created_at)}</dd>
${webhook.description ? html`<dt>Description</dt><dd>${webhook.description}</dd>` : ''}
</dl>
<div class="row-actions">${toggle}${test}<a class="button secondary small-button" href="${path(context, webhook.id)}/edit" aria-label="Edit the endpoint ${webhook.url}">Edit</a><a class="button secondary small-button" href="${path(context, webhook.id)}/rotate" aria-label="Rotate secret of the endpoint ${webhook.url}">Rotate secret</a><a class="button danger small-button" href="${path(context, webhook.id)}/delete" aria-label="Delete the endpoint ${webhook.url}">Delete</a></div>`;
}

/** The add form (on the list), or an endpoint's edit form (`edit`: where it posts). */
export function endpointForm(
  context: SignedInContext,
  form: EndpointForm,
  edit?: { action: string; cancel: string },
): Html {
  const chosen = new Set(form.eventTypes ?? ['*']);
  const eventsError = form.errors?.event_types;
  const boxes = join(
    FORM_EVENT_FILTERS.map(
      (filter, i) => html`<div class="check">
<input type="checkbox" id="event-${i}" name="event:${filter}" value="on"${chosen.has(filter) ? ' checked' : ''}>
<label for="event-${i}">${FILTER_WORDS[filter]} <span class="tag mono">${filter}</span></label>
</div>`,
    ),
    '\n',
  );
  return html`<section aria-labelledby="add-endpoint-heading">
<h2 id="add-endpoint-heading">${edit ? 'Edit the endpoint' : 'Add an endpoint'}</h2>
<form method="post" action="${edit ? edit.action : `${context.path}/webhooks`}" novalidate>
${csrfField(context)}
${hidden('client_id', form.clientId)}
${field({ id: 'webhook-url', name: 'url', label: 'Endpoint URL', type: 'url', value: form.url, hint: 'An https URL of your receiver. It must not resolve to a private or loopback address.', error: form.errors?.url, attributes: html`maxlength="${MAX_URL_LENGTH}" spellcheck="false" autocomplete="url"` })}
<fieldset class="field"${eventsError ? html` aria-describedby="event-types-error"` : ''}>
<legend>Events to send</legend>
${boxes}
${eventsError ? html`<p class="field-error" id="event-types-error">${eventsError}</p>` : ''}
</fieldset>
${edit ? html`<div class="actions"><button type="submit" class="primary">Save changes</button><a class="button secondary" href="${edit.cancel}">Cancel</a></div>` : html`<button type="submit" class="primary">Add endpoint</button>`}
</form>
</section>`;
}

export function webhooksPage(
  context: SignedInContext,
  endpoints: EndpointWithDeliveries[],
  options: { nextCursor: string | null; notice?: Html; form: EndpointForm; created?: { url: string; secret: string } },
): Html {
  const back = `${context.path}/webhooks`;
  const list =
    endpoints.length === 0
      ? html`<p>No endpoints yet. Add one below, or with <code>POST /v1/webhooks</code>.</p>`
      : join(
          endpoints.map(
            ({
              webhook,
              deliveries,
              moreDeliveries,
            }) => html`<article class="endpoint" aria-labelledby="${webhook.id}-heading">
${endpointHeader(context, webhook, back, 'h2')}
${deliveriesTable(context, webhook, deliveries, back, `Recent deliveries to ${webhook.url}, newest first`)}
${moreDeliveries ? html`<p class="small"><a href="${path(context, webhook.id)}">All deliveries to this endpoint</a></p>` : ''}
</article>`,
          ),
          '\n',
        );
  const reveal = options.created
    ? revealOnce({
        id: 'new-secret',
        heading: `Endpoint added: ${options.created.url}`,
        label: 'Signing secret',
        secret: options.created.secret,
        explain: "Your receiver verifies each delivery's webhook-signature header with it.",
      })
    : '';
  const title = options.form.errors ? 'Error: Webhooks' : 'Webhooks';
  return sectionPage(
    context,
    title,
    html`<h1>Webhooks</h1>
<p class="lead">Cellgate POSTs every event of the chosen types to your endpoints, signed per Standard Webhooks, and retries failures for up to 5 days.</p>
${options.notice}
${reveal}
${list}
${options.nextCursor ? html`<p class="after"><a href="${back}?cursor=${encodeURIComponent(options.nextCursor)}">More endpoints</a></p>` : ''}
${endpointForm(context, options.form)}`,
  );
}

/** One endpoint with its whole delivery log, a page at a time. */
export function endpointPage(
  context: SignedInContext,
  webhook: WebhookView,
  deliveries: DeliveryView[],
  options: { nextCursor: string | null; notice?: Html; back: string },
): Html {
  return sectionPage(
    context,
    `Deliveries to ${webhook.url}`,
    html`<p class="small"><a href="${context.path}/webhooks">All endpoints</a></p>
${options.notice}
${endpointHeader(context, webhook, options.back, 'h1')}
${deliveriesTable(context, webhook, deliveries, options.back, 'Deliveries to this endpoint, newest first')}
${options.nextCursor ? html`<p class="after"><a href="${path(context, webhook.id)}?cursor=${encodeURIComponent(options.nextCursor)}">Older deliveries</a></p>` : ''}`,
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

const headerList = (headers: Record<string, string>) =>
  html`<dl class="facts mono">${Object.entries(headers).map(
    ([name, value]) => html`<dt>${name}</dt><dd class="wrap">${value}</dd>`,
  )}</dl>`;

/** One delivery: the signed request (body, and each attempt's headers) and every response. */
export function deliveryPage(
  context: SignedInContext,
  webhook: WebhookView,
  delivery: DeliveryDetail,
  options: { notice?: Html },
): Html {
  const [kind, label] = STATUS[delivery.status];
  const attempts =
    delivery.exchanges.length === 0
      ? html`<p class="small">No attempt yet: it is queued.</p>`
      : join(
          delivery.exchanges.map(
            (a, i) => html`<section class="attempt" aria-labelledby="attempt-${i + 1}">
<h3 id="attempt-${i + 1}">Attempt ${i + 1}, ${when(a.attempted_at)}</h3>
<h4>Request headers</h4>
${a.request_headers ? headerList(a.request_headers) : html`<p class="small">Nothing was sent (the URL was refused).</p>`}
<h4>Response</h4>
<p>${a.status_code === null ? html`<span class="small">No response: ${a.error ?? 'unknown error'}</span>` : html`<span class="mono">HTTP ${a.status_code}</span>`}</p>
${a.response_body ? html`<pre class="wrap" aria-label="Response body (the first 4 KiB)">${a.response_body}</pre>` : a.status_code === null ? html`` : html`<p class="small">Empty body.</p>`}
</section>`,
          ),
          '\n',
        );
  return sectionPage(
    context,
    `Delivery ${delivery.id}`,
    html`<p class="small"><a href="${path(context, webhook.id)}">Deliveries to ${webhook.url}</a></p>
${options.notice}
<h1>${delivery.event_type} delivery</h1>
<dl class="facts">
<dt>Status</dt><dd>${stateTag(kind, label)}</dd>
<dt>Delivery ID</dt><dd class="mono">${delivery.id}</dd>
<dt>Event ID (webhook-id)</dt><dd class="mono">${delivery.event_id}</dd>
<dt>Endpoint</dt><dd class="mono">${webhook.url}</dd>
<dt>Created</dt><dd>${when(delivery.created_at)}</dd>
</dl>
${retryCell(context, webhook, delivery, `${path(context, webhook.id)}/deliveries/${encodeURIComponent(delivery.id)}`)}
<h2>Request body</h2>
<pre class="wrap" aria-label="Request body">${pretty(delivery.payload)}</pre>
<h2>Attempts</h2>
${attempts}`,
  );
}
