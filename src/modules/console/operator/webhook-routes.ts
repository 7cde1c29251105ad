// The operator's webhooks in the console, each action the admin API's operation through invoke (so
// each change is in the operator audit log, as through /v1/admin/webhooks):
//   GET  /console/operator/webhooks                         the endpoints and the add form; POST adds
//   GET  /console/operator/webhooks/:id                     deliveries and actions
//   POST /console/operator/webhooks/:id/enabled             enable or disable (enabled=true|false)
//   POST /console/operator/webhooks/:id/rotate              a new secret, shown once
//   GET  /console/operator/webhooks/:id/delete              confirm; POST deletes
//   POST /console/operator/webhooks/:id/deliveries/:delivery_id/retry
import type { Html } from '../../../lib/html.ts';
import type { FastifyReply } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomBase62 } from '../../../lib/secrets.ts';
import { DEVICE_EVENT_TYPES } from '../../devices/events.ts';
import type { WebhookView } from '../../webhooks/service.ts';
import { noticeOf, param, text, withNotice } from '../account/shared.ts';
import { registerFormParser, sendPage } from '../http.ts';
import { badListLink, redirect } from './http.ts';
import { errorNotice } from '../layout.ts';
import { sayFieldError } from '../field-errors.ts';
import { operatorMessagePage } from './layout.ts';
import { actAs, type OperatorConsole } from './module.ts';
import { createFromForm } from '../act.ts';
import { HIDDEN, PUBLIC } from './routes.ts';
import type { OperatorSession } from './service.ts';
import {
  deleteWebhookPage,
  webhookPage,
  webhookPath,
  webhooksPage,
  WEBHOOKS_PATH,
  type DeliveryRow,
  type OperatorWebhookForm,
} from './webhook-pages.ts';

const NOTICES = {
  enabled: 'Endpoint enabled: its queued deliveries resume.',
  disabled: 'Endpoint disabled: events are kept for it until you enable it again.',
  deleted: 'Endpoint deleted: no more phone events are sent to it.',
  retried: 'Delivery queued: it is attempted again in a moment.',
  existing: 'This endpoint was already added (the form was sent twice); its secret was shown the first time.',
};
const URL_LABELS = { url: 'The URL', event_types: 'The events' };
const ENDPOINTS_PER_PAGE = 50;
const DELIVERIES_PER_PAGE = 20;
const newForm = (): OperatorWebhookForm => ({ clientId: `operator_${randomBase62(24)}`, url: '', eventTypes: [] });

export function registerOperatorWebhookPages(app: App, operator: OperatorConsole): void {
  const { guard } = operator;
  const ops = operator.operations.webhooks;

  const notFound = (reply: FastifyReply, session: OperatorSession) =>
    sendPage(
      reply,
      404,
      operatorMessagePage(session, 'Endpoint not found', 'No operator webhook endpoint has this id.', {
        href: WEBHOOKS_PATH,
        text: 'Back to the webhooks',
      }),
    );
  /** Runs the operation; null (after answering 404) when the endpoint or delivery is unknown. */
  async function orNotFound<T>(reply: FastifyReply, session: OperatorSession, run: () => Promise<T>) {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError && (error.code === 'not_found' || error.code === 'invalid_request')) {
        await notFound(reply, session);
        return null;
      }
      throw error;
    }
  }
  const list = (session: OperatorSession, cursor?: string) =>
    actAs<{ webhooks: WebhookView[]; next_cursor: string | null }>(operator, session, ops.listWebhooks, {
      limit: ENDPOINTS_PER_PAGE,
      ...(cursor ? { cursor } : {}),
    });
  const get = (session: OperatorSession, id: string) => actAs<WebhookView>(operator, session, ops.getWebhook, { id });

  /** The endpoint's page with a page of its deliveries (`cursor`: older ones). */
  async function showEndpoint(
    reply: FastifyReply,
    session: OperatorSession,
    id: string,
    extra: { notice?: Html; secret?: string; cursor?: string },
    status = 200,
  ) {
    const webhook = await orNotFound(reply, session, () => get(session, id));
    if (!webhook) return reply;
    const deliveries = await orBadLink(reply, session, webhookPath(webhook.id), () =>
      actAs<{ deliveries: DeliveryRow[]; next_cursor: string | null }>(operator, session, ops.listWebhookDeliveries, {
        webhook_id: webhook.id,
        limit: DELIVERIES_PER_PAGE,
        ...(extra.cursor ? { cursor: extra.cursor } : {}),
      }),
    );
    if (!deliveries) return reply;
    return sendPage(
      reply,
      status,
      webhookPage(session, {
        webhook,
        deliveries: deliveries.deliveries,
        nextCursor: deliveries.next_cursor,
        notice: extra.notice,
        secret: extra.secret,
      }),
    );
  }
  /** Runs a list; null (after answering 400) when the link's cursor is not one the console wrote. */
  async function orBadLink<T>(reply: FastifyReply, session: OperatorSession, back: string, run: () => Promise<T>) {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_request') {
        await badListLink(reply, session, { href: back, text: 'Back to the first page' });
        return null;
      }
      throw error;
    }
  }

  app.register(async (scope) => {
    registerFormParser(scope);
    const route = { config: PUBLIC, schema: HIDDEN };

    scope.get(WEBHOOKS_PATH, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const page = await orBadLink(reply, session, WEBHOOKS_PATH, () =>
        list(session, text(request.query, 'cursor') || undefined),
      );
      if (!page) return reply;
      const notice = noticeOf(request.query, NOTICES);
      return sendPage(
        reply,
        200,
        webhooksPage(session, { webhooks: page.webhooks, nextCursor: page.next_cursor, form: newForm(), notice }),
      );
    });

    scope.post(WEBHOOKS_PATH, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const form: OperatorWebhookForm = {
        clientId: text(request.body, 'client_id') || newForm().clientId,
        url: text(request.body, 'url').trim(),
        eventTypes: DEVICE_EVENT_TYPES.filter((type) => text(request.body, `event:${type}`) === 'on'),
      };
      const again = async (status: number, error: string) => {
        const first = await list(session);
        return sendPage(
          reply,
          status,
          webhooksPage(session, { webhooks: first.webhooks, nextCursor: first.next_cursor, form: { ...form, error } }),
        );
      };
      if (form.url === '') return again(400, 'Enter the URL of your endpoint, https://…');
      const create = (clientId: string) =>
        actAs<{ created: boolean; webhook: WebhookView & { secret?: string } }>(operator, session, ops.createWebhook, {
          client_id: clientId,
          url: form.url,
          ...(form.eventTypes.length > 0 ? { event_types: form.eventTypes } : {}),
        });
      let result: { created: boolean; webhook: WebhookView & { secret?: string } };
      try {
        result = await createFromForm(create, form.clientId, () => newForm().clientId);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        const refused = error.errors?.find((e) => e.field === 'url') ?? error.errors?.[0];
        return again(400, refused ? sayFieldError(refused.field, refused.message, URL_LABELS) : error.message);
      }
      const { webhooks, next_cursor: nextCursor } = await list(session);
      if (!result.created || !result.webhook.secret)
        return sendPage(
          reply,
          200,
          webhooksPage(session, {
            webhooks,
            nextCursor,
            form: newForm(),
            notice: noticeOf({ notice: 'existing' }, NOTICES),
          }),
        );
      return sendPage(
        reply,
        201,
        webhooksPage(session, {
          webhooks,
          nextCursor,
          form: newForm(),
          created: { url: result.webhook.url, secret: result.webhook.secret },
        }),
      );
    });

    scope.get(`${WEBHOOKS_PATH}/:id`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      return showEndpoint(reply, session, param(request.params, 'id'), {
        notice: noticeOf(request.query, NOTICES),
        cursor: text(request.query, 'cursor') || undefined,
      });
    });

    scope.post(`${WEBHOOKS_PATH}/:id/enabled`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'id');
      const enabled = text(request.body, 'enabled');
      if (enabled !== 'true' && enabled !== 'false')
        return sendPage(
          reply,
          400,
          operatorMessagePage(session, 'Not changed', 'Choose whether the endpoint is enabled.', {
            href: webhookPath(id),
            text: 'Back to the endpoint',
          }),
        );
      const updated = await orNotFound(reply, session, () =>
        actAs<WebhookView>(operator, session, ops.updateWebhook, { id, enabled: enabled === 'true' }),
      );
      if (!updated) return reply;
      return redirect(reply, withNotice(webhookPath(id), updated.enabled ? 'enabled' : 'disabled'));
    });

    scope.post(`${WEBHOOKS_PATH}/:id/rotate`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'id');
      const rotated = await orNotFound(reply, session, () =>
        actAs<{ secret: string }>(operator, session, ops.rotateWebhookSecret, { id }),
      );
      if (!rotated) return reply;
      return showEndpoint(reply, session, id, { secret: rotated.secret });
    });

    scope.get(`${WEBHOOKS_PATH}/:id/delete`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const webhook = await orNotFound(reply, session, () => get(session, param(request.params, 'id')));
      if (!webhook) return reply;
      return sendPage(reply, 200, deleteWebhookPage(session, webhook));
    });

    scope.post(`${WEBHOOKS_PATH}/:id/delete`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'id');
      const deleted = await orNotFound(reply, session, async () => {
        await actAs(operator, session, ops.deleteWebhook, { id });
        return true;
      });
      if (!deleted) return reply;
      return redirect(reply, withNotice(WEBHOOKS_PATH, 'deleted'));
    });

    scope.post(`${WEBHOOKS_PATH}/:id/deliveries/:delivery_id/retry`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'id');
      try {
        const retried = await orNotFound(reply, session, () =>
          actAs(operator, session, ops.retryWebhookDelivery, { id, delivery_id: param(request.params, 'delivery_id') }),
        );
        if (!retried) return reply;
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
        const notice = errorNotice(error.message);
        return showEndpoint(reply, session, id, { notice }, 409);
      }
      return redirect(reply, withNotice(webhookPath(id), 'retried'));
    });
  });
}
