// /console/webhooks: endpoints and deliveries, retry, enable/disable and add an endpoint, all
// through the WebhooksService the /v1/webhooks routes use (a console retry is the API's retry).
import { randomBase62 } from '../../../lib/secrets.ts';
import type { App } from '../../../http/types.ts';
import { consoleBinder, type Ask, type Refusal, type SectionOptions } from '../binder.ts';
import { CONSOLE_PATH, safeNext } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { createFromForm } from '../act.ts';
import { messagePage } from '../pages.ts';
import { notice, noticeOf, text, withNotice } from './shared.ts';
import { deliveryPage, endpointPage, FORM_EVENT_FILTERS, webhooksPage, type EndpointForm } from './webhooks-pages.ts';

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
export const WEBHOOKS_SECTION: SectionOptions = {
  section: 'webhooks',
  back: { href: `${CONSOLE_PATH}/webhooks`, text: 'Back to webhooks' },
  missing: 'webhook endpoint',
};
/** A create's client_id: the form carries one, so sending the same form twice adds one endpoint. */
const newClientId = () => `console_${randomBase62(24)}`;
const CLIENT_ID = /^console_[A-Za-z0-9]{24}$/;

export function registerWebhookPages(scope: App, module: ConsoleModule): void {
  const webhooks = module.dashboard.webhooking.webhooks;
  const ops = module.dashboard.webhooking.operations;
  const bind = consoleBinder(scope, module, WEBHOOKS_SECTION);
  const WEBHOOKS = `${CONSOLE_PATH}/webhooks`;

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
    return webhooksPage(context, endpoints, {
      ...options,
      nextCursor: page.next_cursor,
      form: options.form ?? { clientId: newClientId() },
    });
  }

  bind.view(WEBHOOKS, (ask) => listOf(ask, { notice: noticeOf(ask.query, NOTICES) }));

  bind.view(`${WEBHOOKS}/:webhook_id`, async ({ session, context, params, query }) => {
    const webhook = await webhooks.get(session.organizationId, params.webhook_id);
    const page = await webhooks.listDeliveries(session.organizationId, params.webhook_id, {
      limit: DELIVERIES_PER_PAGE,
      cursor: query.cursor || undefined,
    });
    return endpointPage(context, webhook, page.deliveries, {
      nextCursor: page.next_cursor,
      notice: noticeOf(query, NOTICES),
      back: `${WEBHOOKS}/${encodeURIComponent(params.webhook_id)}`,
    });
  });

  bind.view(
    `${WEBHOOKS}/:webhook_id/deliveries/:delivery_id`,
    async ({ session, context, params, query }) =>
      deliveryPage(
        context,
        await webhooks.get(session.organizationId, params.webhook_id),
        await webhooks.deliveryDetail(session.organizationId, params.webhook_id, params.delivery_id),
        { notice: noticeOf(query, NOTICES) },
      ),
    { missing: 'delivery' },
  );

  bind.post(`${WEBHOOKS}/:webhook_id/test`, {
    run: async ({ session, params, body }) => {
      await webhooks.sendTestEvent(session.organizationId, params.webhook_id);
      return withNotice(backOf(body), 'tested');
    },
  });

  bind.post(WEBHOOKS, {
    run: async (ask) => {
      const form = endpointFormOf(ask.request.body);
      if (form.errors) return ask.send(400, await listOf(ask, { form }));
      const create = (clientId: string) =>
        ask.call(ops.createWebhook, { client_id: clientId, url: form.url, event_types: form.eventTypes });
      const { created, webhook } = await createFromForm(create, form.clientId, newClientId);
      if (!created || !webhook.secret) return listOf(ask, { notice: notice('ok', NOTICES.existing) });
      return ask.send(201, await listOf(ask, { created: { url: webhook.url, secret: webhook.secret } }));
    },
    page: (ask, refusal) => listOf(ask, { form: { ...endpointFormOf(ask.request.body), errors: urlErrors(refusal) } }),
  });

  bind.post(`${WEBHOOKS}/:webhook_id/deliveries/:delivery_id/retry`, {
    missing: 'delivery',
    run: async ({ call, params, body }) => {
      await call(ops.retryWebhookDelivery, { id: params.webhook_id, delivery_id: params.delivery_id });
      return withNotice(backOf(body), 'retried');
    },
  });

  bind.post(`${WEBHOOKS}/:webhook_id/enabled`, {
    run: async ({ call, context, params, body, send }) => {
      const { enabled } = body;
      if (enabled !== 'true' && enabled !== 'false')
        return send(
          400,
          messagePage(context, 'Not changed', 'Choose whether the endpoint is enabled.', WEBHOOKS_SECTION.back),
        );
      const updated = await call(ops.updateWebhook, { id: params.webhook_id, enabled: enabled === 'true' });
      return withNotice(backOf(body), updated.enabled ? 'enabled' : 'disabled');
    },
  });
}

/** An endpoint form's refusal by the service: on the URL field, where the form shows it. */
export const urlErrors = (refusal: Refusal): EndpointForm['errors'] => ({
  url: refusal.errors.url ?? (Object.values(refusal.errors).join(' ') || refusal.notice),
});

/** Where a row's form returns: the console page it was on. */
const backOf = (body: unknown) => safeNext(text(body, 'next')) ?? `${CONSOLE_PATH}/webhooks`;

/** The add-endpoint form as posted, with an error per field the console itself can tell. */
export function endpointFormOf(body: unknown): EndpointForm {
  const url = text(body, 'url').trim();
  const eventTypes = FORM_EVENT_FILTERS.filter((filter) => text(body, `event:${filter}`) === 'on');
  const posted = text(body, 'client_id');
  const form: EndpointForm = {
    clientId: CLIENT_ID.test(posted) ? posted : newClientId(),
    url,
    eventTypes: eventTypes.includes('*') ? ['*'] : eventTypes,
  };
  const errors: NonNullable<EndpointForm['errors']> = {};
  if (url === '') errors.url = 'Enter the URL of your receiver, like https://agent.example.com/hooks/cellgate.';
  if (eventTypes.length === 0) errors.event_types = 'Choose at least one kind of event.';
  return Object.keys(errors).length > 0 ? { ...form, errors } : form;
}
