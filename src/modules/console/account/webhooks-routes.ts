// /console/webhooks: endpoints and deliveries, retry, enable/disable, add, edit and delete an
// endpoint and rotate its secret, all through the WebhooksService and the operations the
// /v1/webhooks routes use (a console retry is the API's retry). A rotated secret is shown once, on
// the answer to the rotation's post (no-store); the previous one keeps signing for 24 hours.
import { randomBase62 } from '../../../lib/secrets.ts';
import type { App } from '../../../http/types.ts';
import { consoleBinder, type Ask, type Refusal, type SectionOptions } from '../binder.ts';
import { CONSOLE_PATH, safeNext } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { createFromForm } from '../act.ts';
import { messagePage } from '../pages.ts';
import { notice, noticeOf, text, withNotice } from './shared.ts';
import {
  confirmPage,
  deliveryPage,
  editPage,
  endpointPage,
  endpointPath,
  FORM_EVENT_FILTERS,
  rotatedPage,
  webhooksPage,
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
const WEBHOOKS_SECTION: SectionOptions = {
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
  const ENDPOINT = `${WEBHOOKS}/:webhook_id`;
  const webhookOf = ({ session, params }: Ask) => webhooks.get(session.organizationId, params.webhook_id);
  /** The edit form as posted (an edit has no client_id). */
  const editOf = (ask: Ask) => ({ ...endpointFormOf(ask.request.body), clientId: '' });

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

  bind.view(ENDPOINT, async (ask) => {
    const webhook = await webhookOf(ask);
    const cursor = ask.query.cursor || undefined;
    const page = await webhooks.listDeliveries(ask.session.organizationId, webhook.id, {
      limit: DELIVERIES_PER_PAGE,
      cursor,
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

  bind.post(`${WEBHOOKS}/:webhook_id/test`, {
    run: async ({ call, params, body }) => {
      await call(ops.sendWebhookTestEvent, { id: params.webhook_id });
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

  bind.post(`${ENDPOINT}/deliveries/:delivery_id/retry`, {
    missing: 'delivery',
    run: async ({ call, params, body }) => {
      await call(ops.retryWebhookDelivery, { id: params.webhook_id, delivery_id: params.delivery_id });
      return withNotice(backOf(body), 'retried');
    },
  });

  bind.post(`${ENDPOINT}/enabled`, {
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

  bind.view(`${ENDPOINT}/edit`, async (ask) => {
    const webhook = await webhookOf(ask);
    return editPage(ask.context, webhook, { clientId: '', url: webhook.url, eventTypes: webhook.event_types });
  });

  bind.post(`${ENDPOINT}/edit`, {
    run: async (ask) => {
      const webhook = await webhookOf(ask);
      const form = editOf(ask);
      if (form.errors) return ask.send(400, editPage(ask.context, webhook, form));
      await ask.call(ops.updateWebhook, { id: webhook.id, url: form.url, event_types: form.eventTypes });
      return withNotice(endpointPath(ask.context, webhook.id), 'updated');
    },
    page: async (ask, refusal) =>
      editPage(ask.context, await webhookOf(ask), { ...editOf(ask), errors: urlErrors(refusal) }),
  });

  for (const action of ['rotate', 'delete'] as const)
    bind.view(`${ENDPOINT}/${action}`, async (ask) => confirmPage(ask.context, await webhookOf(ask), action));

  bind.post(`${ENDPOINT}/rotate`, {
    run: async ({ call, context, params }) =>
      rotatedPage(context, await call(ops.rotateWebhookSecret, { id: params.webhook_id })),
  });

  bind.post(`${ENDPOINT}/delete`, {
    run: async ({ call, params }) => {
      await call(ops.deleteWebhook, { id: params.webhook_id });
      return withNotice(WEBHOOKS, 'deleted');
    },
  });
}

/** An endpoint form's refusal by the service: on the URL field, where the form shows it. */
const urlErrors = (refusal: Refusal): EndpointForm['errors'] => ({
  url: refusal.errors.url ?? (Object.values(refusal.errors).join(' ') || refusal.notice),
});

/** Where a row's form returns: the console page it was on. */
const backOf = (body: unknown) => safeNext(text(body, 'next')) ?? `${CONSOLE_PATH}/webhooks`;

/** The add-endpoint form as posted, with an error per field the console itself can tell. */
function endpointFormOf(body: unknown): EndpointForm {
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
