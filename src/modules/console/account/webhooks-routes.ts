// /console/webhooks: endpoints and deliveries, retry, enable/disable, add, edit and delete an
// endpoint and rotate its secret, all through the WebhooksService and the operations the
// /v1/webhooks routes use (a console retry is the API's retry). A rotated secret is shown once, on
// the answer to the rotation's post (no-store); the previous one keeps signing for 24 hours.
import { randomBase62 } from '../../../lib/secrets.ts';
import type { App } from '../../../http/types.ts';
import { consoleBinder, FormRefusal, type Ask, type Refusal } from '../binder.ts';
import { safeNext } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { createFromForm } from '../act.ts';
import { messagePage } from '../pages.ts';
import { notice, noticeOf, withNotice } from './shared.ts';
import {
  confirmPage,
  deliveryPage,
  editPage,
  endpointPage,
  endpointPath,
  FORM_EVENT_FILTERS,
  rotatedPage,
  webhooksPage,
  WEBHOOKS_PATH as WEBHOOKS,
  type EndpointForm,
} from './webhooks-pages.ts';

const ENDPOINTS_PER_PAGE = 20;
const RECENT_DELIVERIES = 5;
const DELIVERIES_PER_PAGE = 50;
const NOTICES = {
  retried: 'Delivery queued: it will be attempted again in a moment.',
  tested: 'Test event queued: a webhook.test delivery to this endpoint is attempted in a moment.',
  enabled: 'Endpoint enabled: its queued deliveries resume.',
  disabled: 'Endpoint disabled: events are kept for it until you enable it again.',
  deleted: 'Endpoint deleted: no more events are sent to it.',
  updated: 'Endpoint saved: the next events go by the new settings.',
  existing: 'This endpoint was already added (the form was sent twice); its secret was shown the first time.',
};
const BACK = { href: WEBHOOKS, text: 'Back to webhooks' };
/** A create's client_id: the form carries one, so sending the same form twice adds one endpoint. */
const newClientId = () => `console_${randomBase62(24)}`;
const CLIENT_ID = /^console_[A-Za-z0-9]{24}$/;

export function registerWebhookPages(scope: App, module: ConsoleModule): void {
  const webhooks = module.dashboard.webhooking.webhooks;
  const ops = module.dashboard.webhooking.operations;
  const bind = consoleBinder(scope, module, { section: 'webhooks', back: BACK, missing: 'webhook endpoint' });
  const ENDPOINT = `${WEBHOOKS}/:webhook_id`;
  const webhookOf = ({ session, params }: Ask) => webhooks.get(session.organizationId, params.webhook_id);

  /** The endpoints page (a page of endpoints, each with its latest deliveries). */
  async function listOf({ session, context, query }: Ask, options: Partial<Parameters<typeof webhooksPage>[2]> = {}) {
    const organizationId = session.organizationId;
    const page = await webhooks.list(organizationId, { limit: ENDPOINTS_PER_PAGE, cursor: query.cursor || undefined });
    const endpoints = await Promise.all(
      page.webhooks.map(async (webhook) => {
        const recent = await webhooks.listDeliveries(organizationId, webhook.id, { limit: RECENT_DELIVERIES });
        return { webhook, deliveries: recent.deliveries, moreDeliveries: recent.next_cursor !== null };
      }),
    );
    const form = options.form ?? { clientId: newClientId() };
    return webhooksPage(context, endpoints, { ...options, nextCursor: page.next_cursor, form });
  }

  /** A button's post: its work, then back to the page it was on (`next`) with its notice. */
  const button = (path: string, done: string, act: (ask: Ask) => Promise<unknown>, missing?: string) =>
    bind.post(path, {
      missing,
      run: async (ask) => {
        await act(ask);
        return withNotice(backOf(ask.body), done);
      },
    });

  bind.view(WEBHOOKS, (ask) => listOf(ask, { notice: noticeOf(ask.query, NOTICES) }));

  bind.view(ENDPOINT, async (ask) => {
    const webhook = await webhookOf(ask);
    const page = await webhooks.listDeliveries(ask.session.organizationId, webhook.id, {
      limit: DELIVERIES_PER_PAGE,
      cursor: ask.query.cursor || undefined,
    });
    return endpointPage(ask.context, webhook, page, noticeOf(ask.query, NOTICES));
  });

  bind.view(
    `${ENDPOINT}/deliveries/:delivery_id`,
    async (ask) => {
      const { session, params } = ask;
      const delivery = await webhooks.deliveryDetail(session.organizationId, params.webhook_id, params.delivery_id);
      return deliveryPage(ask.context, await webhookOf(ask), delivery, noticeOf(ask.query, NOTICES));
    },
    { missing: 'delivery' },
  );

  button(`${ENDPOINT}/test`, 'tested', ({ call, params }) => call(ops.sendWebhookTestEvent, { id: params.webhook_id }));
  button(
    `${ENDPOINT}/deliveries/:delivery_id/retry`,
    'retried',
    ({ call, params }) => call(ops.retryWebhookDelivery, { id: params.webhook_id, delivery_id: params.delivery_id }),
    'delivery',
  );
  // The confirmation's form has no `next`: back to the list.
  button(`${ENDPOINT}/delete`, 'deleted', ({ call, params }) => call(ops.deleteWebhook, { id: params.webhook_id }));

  bind.post(WEBHOOKS, {
    run: async (ask) => {
      const form = endpointFormOf(ask.body);
      if (form.errors) throw new FormRefusal(form.errors);
      const create = (clientId: string) =>
        ask.call(ops.createWebhook, { client_id: clientId, url: form.url, event_types: form.eventTypes });
      const { created, webhook } = await createFromForm(create, form.clientId, newClientId);
      if (!created || !webhook.secret) return listOf(ask, { notice: notice('ok', NOTICES.existing) });
      return ask.send(201, await listOf(ask, { created: { url: webhook.url, secret: webhook.secret } }));
    },
    page: (ask, refusal) => listOf(ask, { form: refusedForm(ask.body, refusal) }),
  });

  bind.post(`${ENDPOINT}/enabled`, {
    run: async ({ call, context, params, body, send }) => {
      const { enabled } = body;
      if (enabled !== 'true' && enabled !== 'false')
        return send(400, messagePage(context, 'Not changed', 'Choose whether the endpoint is enabled.', BACK));
      const updated = await call(ops.updateWebhook, { id: params.webhook_id, enabled: enabled === 'true' });
      return withNotice(backOf(body), updated.enabled ? 'enabled' : 'disabled');
    },
  });

  bind.view(`${ENDPOINT}/edit`, async (ask) => {
    const webhook = await webhookOf(ask);
    return editPage(ask.context, webhook, { url: webhook.url, eventTypes: webhook.event_types });
  });

  bind.form(`${ENDPOINT}/edit`, ops.updateWebhook, {
    input: ({ body, params }) => {
      const form = endpointFormOf(body);
      if (form.errors) throw new FormRefusal(form.errors);
      return { id: params.webhook_id, url: form.url, event_types: form.eventTypes };
    },
    page: async (ask, refusal) => editPage(ask.context, await webhookOf(ask), refusedForm(ask.body, refusal)),
    done: ({ params }) => withNotice(endpointPath(params.webhook_id), 'updated'),
  });

  for (const action of ['rotate', 'delete'] as const)
    bind.view(`${ENDPOINT}/${action}`, async (ask) => confirmPage(ask.context, await webhookOf(ask), action));

  bind.post(`${ENDPOINT}/rotate`, {
    run: async ({ call, context, params }) =>
      rotatedPage(context, await call(ops.rotateWebhookSecret, { id: params.webhook_id })),
  });
}

/** The endpoint form again with its refusal: the events' error on its group, any other on the URL field. */
const refusedForm = (body: Ask['body'], { errors: { event_types, ...others }, notice }: Refusal): EndpointForm => ({
  ...endpointFormOf(body),
  errors: { url: others.url ?? (Object.values(others).join(' ') || notice), event_types },
});

/** Where a row's form returns: the console page it was on. */
const backOf = (body: Ask['body']) => safeNext(body.next) ?? WEBHOOKS;

/** The add-endpoint form as posted, with an error per field the console itself can tell. */
function endpointFormOf(body: Ask['body']): EndpointForm & { clientId: string } {
  const url = (body.url ?? '').trim();
  const eventTypes = FORM_EVENT_FILTERS.filter((filter) => body[`event:${filter}`] === 'on');
  const form = {
    clientId: CLIENT_ID.test(body.client_id ?? '') ? body.client_id : newClientId(),
    url,
    eventTypes: eventTypes.includes('*') ? ['*'] : eventTypes,
  };
  const errors: NonNullable<EndpointForm['errors']> = {};
  if (url === '') errors.url = 'Enter the URL of your receiver, like https://agent.example.com/hooks/cellgate.';
  if (eventTypes.length === 0) errors.event_types = 'Choose at least one kind of event.';
  return Object.keys(errors).length > 0 ? { ...form, errors } : form;
}
