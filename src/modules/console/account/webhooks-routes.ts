// /console/webhooks: endpoints and deliveries, retry, enable/disable and add an endpoint, all
// through the WebhooksService the /v1/webhooks routes use (a console retry is the API's retry).
import type { Html } from '../../../lib/html.ts';
import type { FastifyReply } from 'fastify';
import { randomBase62 } from '../../../lib/secrets.ts';
import type { App } from '../../../http/types.ts';
import { contextOf, redirect, type SignedInContext } from '../guard.ts';
import { CONSOLE_PATH, safeNext, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { consoleActor, createFromForm } from '../act.ts';
import type { WebhookView } from '../../webhooks/service.ts';
import type { ConsoleSession } from '../service.ts';
import { messagePage } from '../pages.ts';
import { fieldErrorsOf, HIDDEN, notice, noticeOf, orPage, param, PUBLIC, text, withNotice } from './shared.ts';
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
const BACK = { href: `${CONSOLE_PATH}/webhooks`, text: 'Back to webhooks' };
/** A create's client_id: the form carries one, so sending the same form twice adds one endpoint. */
const newClientId = () => `console_${randomBase62(24)}`;
const CLIENT_ID = /^console_[A-Za-z0-9]{24}$/;

export function registerWebhookPages(scope: App, module: ConsoleModule): void {
  const { guard } = module;
  const webhooks = module.dashboard.webhooking.webhooks;
  const ops = module.dashboard.webhooking.operations;
  const act = consoleActor(module.dashboard.invoker);

  /** The endpoints page (a page of endpoints, each with its latest deliveries). */
  async function sendList(
    reply: FastifyReply,
    session: ConsoleSession,
    status: number,
    options: { cursor?: string; notice?: Html; form?: EndpointForm; created?: { url: string; secret: string } },
  ) {
    const context = contextOf(session, 'webhooks');
    const organizationId = session.organizationId;
    const page = await orPage(reply, context, BACK, 'page', () =>
      webhooks.list(organizationId, { limit: ENDPOINTS_PER_PAGE, cursor: options.cursor }),
    );
    if (!page) return reply;
    const endpoints = await Promise.all(
      page.webhooks.map(async (webhook) => {
        const recent = await webhooks.listDeliveries(organizationId, webhook.id, { limit: RECENT_DELIVERIES });
        return { webhook, deliveries: recent.deliveries, moreDeliveries: recent.next_cursor !== null };
      }),
    );
    return sendPage(
      reply,
      status,
      webhooksPage(context, endpoints, {
        nextCursor: page.next_cursor,
        notice: options.notice,
        form: options.form ?? { clientId: newClientId() },
        created: options.created,
      }),
    );
  }

  scope.get(`${CONSOLE_PATH}/webhooks`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    return sendList(reply, session, 200, {
      cursor: text(request.query, 'cursor') || undefined,
      notice: noticeOf(request.query, NOTICES),
    });
  });

  scope.get(`${CONSOLE_PATH}/webhooks/:webhook_id`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const context = contextOf(session, 'webhooks');
    const webhookId = param(request.params, 'webhook_id');
    const found = await orPage(reply, context, BACK, 'webhook endpoint', async () => {
      const webhook = await webhooks.get(session.organizationId, webhookId);
      const page = await webhooks.listDeliveries(session.organizationId, webhookId, {
        limit: DELIVERIES_PER_PAGE,
        cursor: text(request.query, 'cursor') || undefined,
      });
      return { webhook, page };
    });
    if (!found) return reply;
    return sendPage(
      reply,
      200,
      endpointPage(context, found.webhook, found.page.deliveries, {
        nextCursor: found.page.next_cursor,
        notice: noticeOf(request.query, NOTICES),
        back: `${CONSOLE_PATH}/webhooks/${encodeURIComponent(webhookId)}`,
      }),
    );
  });

  scope.get(
    `${CONSOLE_PATH}/webhooks/:webhook_id/deliveries/:delivery_id`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const context = contextOf(session, 'webhooks');
      const webhookId = param(request.params, 'webhook_id');
      const found = await orPage(reply, context, BACK, 'delivery', async () => ({
        webhook: await webhooks.get(session.organizationId, webhookId),
        delivery: await webhooks.deliveryDetail(
          session.organizationId,
          webhookId,
          param(request.params, 'delivery_id'),
        ),
      }));
      if (!found) return reply;
      return sendPage(
        reply,
        200,
        deliveryPage(context, found.webhook, found.delivery, { notice: noticeOf(request.query, NOTICES) }),
      );
    },
  );

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/test`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'webhooks');
      const sent = await orPage(reply, context, BACK, 'webhook endpoint', () =>
        webhooks.sendTestEvent(session.organizationId, param(request.params, 'webhook_id')),
      );
      if (!sent) return reply;
      return redirect(reply, withNotice(backOf(request.body), 'tested'));
    },
  );

  scope.post(`${CONSOLE_PATH}/webhooks`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
    if (!session) return reply;
    const form = endpointFormOf(request.body);
    if (form.errors) return sendList(reply, session, 400, { form });
    const create = (clientId: string) =>
      act<{ created: boolean; webhook: WebhookView & { secret?: string } }>(session, ops.createWebhook, {
        client_id: clientId,
        url: form.url as string,
        event_types: form.eventTypes,
      });
    try {
      const { created, webhook } = await createFromForm(create, form.clientId, newClientId);
      if (!created || !webhook.secret) return sendList(reply, session, 200, { notice: notice('ok', NOTICES.existing) });
      return sendList(reply, session, 201, { created: { url: webhook.url, secret: webhook.secret } });
    } catch (error) {
      const fields = fieldErrorsOf(error, { url: 'The URL' });
      if (!fields) throw error;
      return sendList(reply, session, 400, {
        form: { ...form, errors: { url: fields.url ?? Object.values(fields).join(' ') } },
      });
    }
  });

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/deliveries/:delivery_id/retry`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'webhooks');
      const retried = await orPage(reply, context, BACK, 'delivery', () =>
        act(session, ops.retryWebhookDelivery, {
          id: param(request.params, 'webhook_id'),
          delivery_id: param(request.params, 'delivery_id'),
        }),
      );
      if (!retried) return reply;
      return redirect(reply, withNotice(backOf(request.body), 'retried'));
    },
  );

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/enabled`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context: SignedInContext = contextOf(session, 'webhooks');
      const enabled = text(request.body, 'enabled');
      if (enabled !== 'true' && enabled !== 'false')
        return sendPage(
          reply,
          400,
          messagePage(context, 'Not changed', 'Choose whether the endpoint is enabled.', BACK),
        );
      const updated = await orPage(reply, context, BACK, 'webhook endpoint', () =>
        act<WebhookView>(session, ops.updateWebhook, {
          id: param(request.params, 'webhook_id'),
          enabled: enabled === 'true',
        }),
      );
      if (!updated) return reply;
      return redirect(reply, withNotice(backOf(request.body), updated.enabled ? 'enabled' : 'disabled'));
    },
  );
}

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
