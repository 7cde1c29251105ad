// The operator's webhooks in the console, each action the admin API's operation through invoke (so
// each change is in the operator audit log, as through /v1/admin/webhooks):
//   GET  /console/operator/webhooks                         the endpoints and the add form; POST adds
//   GET  /console/operator/webhooks/:id                     deliveries and actions
//   POST /console/operator/webhooks/:id/enabled             enable or disable (enabled=true|false)
//   POST /console/operator/webhooks/:id/rotate              a new secret, shown once
//   GET  /console/operator/webhooks/:id/delete              confirm; POST deletes
//   POST /console/operator/webhooks/:id/deliveries/:delivery_id/retry
import type { Html } from '../../../lib/html.ts';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomBase62 } from '../../../lib/secrets.ts';
import { DEVICE_EVENT_TYPES } from '../../devices/events.ts';
import { noticeOf, withNotice } from '../account/shared.ts';
import { errorNotice } from '../layout.ts';
import { FormRefusal } from '../binder.ts';
import { badRequest, type OperatorAsk } from './http.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import { createFromForm } from '../act.ts';
import {
  deleteWebhookPage,
  webhookPage,
  webhookPath,
  webhooksPage,
  WEBHOOKS_PATH,
  type OperatorWebhookForm,
} from './webhook-pages.ts';

const NOTICES = {
  enabled: 'Endpoint enabled: its queued deliveries resume.',
  disabled: 'Endpoint disabled: events are kept for it until you enable it again.',
  deleted: 'Endpoint deleted: no more phone events are sent to it.',
  retried: 'Delivery queued: it is attempted again in a moment.',
  existing: 'This endpoint was already added (the form was sent twice); its secret was shown the first time.',
};
const ENDPOINTS_PER_PAGE = 50;
const DELIVERIES_PER_PAGE = 20;
const newForm = (): OperatorWebhookForm => ({ clientId: `operator_${randomBase62(24)}`, url: '', eventTypes: [] });
/** The add form as sent. */
const formOf = ({ body }: OperatorAsk): OperatorWebhookForm => ({
  clientId: body.client_id || newForm().clientId,
  url: (body.url ?? '').trim(),
  eventTypes: DEVICE_EVENT_TYPES.filter((type) => body[`event:${type}`] === 'on'),
});

export function registerOperatorWebhookPages(scope: App, operator: OperatorConsole): void {
  const ops = operator.operations.webhooks;
  const bind = operatorBinder(scope, operator, {
    back: { href: WEBHOOKS_PATH, text: 'Back to the webhooks' },
    missing: 'endpoint',
    gone: 'No operator webhook endpoint has this id.',
    invalidIsMissing: true,
  });

  /** A page of the endpoints (`cursor`: later ones), as the list page takes it. */
  const list = async ({ call }: OperatorAsk, cursor?: string) => {
    const page = await call(ops.listWebhooks, { limit: ENDPOINTS_PER_PAGE, cursor });
    return { webhooks: page.webhooks, nextCursor: page.next_cursor };
  };

  /** The endpoint's page with a page of its deliveries (`cursor`: older ones). */
  async function endpointOf(ask: OperatorAsk, extra: { notice?: Html; secret?: string; cursor?: string }) {
    const { call, session, params } = ask;
    const webhook = await call(ops.getWebhook, { id: params.id });
    const { deliveries, next_cursor: nextCursor } = await call(ops.listWebhookDeliveries, {
      webhook_id: webhook.id,
      limit: DELIVERIES_PER_PAGE,
      cursor: extra.cursor,
    });
    return webhookPage(session, { webhook, deliveries, nextCursor, ...extra });
  }

  bind.view(WEBHOOKS_PATH, async (ask) =>
    webhooksPage(ask.session, {
      ...(await list(ask, ask.query.cursor || undefined)),
      form: newForm(),
      notice: noticeOf(ask.query, NOTICES),
    }),
  );

  bind.post(WEBHOOKS_PATH, {
    run: async (ask) => {
      const form = formOf(ask);
      if (form.url === '') throw new FormRefusal({ url: 'Enter the URL of your endpoint, https://…' });
      const create = (clientId: string) =>
        ask.call(ops.createWebhook, {
          client_id: clientId,
          url: form.url,
          ...(form.eventTypes.length > 0 ? { event_types: form.eventTypes } : {}),
        });
      const { created, webhook } = await createFromForm(create, form.clientId, () => newForm().clientId);
      const listed = { ...(await list(ask)), form: newForm() };
      if (!created || !webhook.secret)
        return webhooksPage(ask.session, { ...listed, notice: noticeOf({ notice: 'existing' }, NOTICES) });
      return ask.send(
        201,
        webhooksPage(ask.session, { ...listed, created: { url: webhook.url, secret: webhook.secret } }),
      );
    },
    // The form again with its one error: the URL's, else the events', else the refusal's.
    page: async (ask, { errors, notice }) =>
      webhooksPage(ask.session, {
        ...(await list(ask)),
        form: { ...formOf(ask), error: errors.url ?? Object.values(errors)[0] ?? notice },
      }),
  });

  bind.view(`${WEBHOOKS_PATH}/:id`, (ask) =>
    endpointOf(ask, { notice: noticeOf(ask.query, NOTICES), cursor: ask.query.cursor || undefined }),
  );

  bind.post(`${WEBHOOKS_PATH}/:id/enabled`, {
    run: async (ask) => {
      const { id } = ask.params;
      const { enabled } = ask.body;
      const back = { href: webhookPath(id), text: 'Back to the endpoint' };
      if (enabled !== 'true' && enabled !== 'false')
        return badRequest(ask, back, 'Not changed', 'Choose whether the endpoint is enabled.');
      const updated = await ask.call(ops.updateWebhook, { id, enabled: enabled === 'true' });
      return withNotice(webhookPath(id), updated.enabled ? 'enabled' : 'disabled');
    },
  });

  bind.post(`${WEBHOOKS_PATH}/:id/rotate`, {
    run: async (ask) => {
      const rotated = await ask.call(ops.rotateWebhookSecret, { id: ask.params.id });
      return endpointOf(ask, { secret: rotated.secret });
    },
  });

  bind.view(`${WEBHOOKS_PATH}/:id/delete`, async ({ session, params, call }) =>
    deleteWebhookPage(session, await call(ops.getWebhook, { id: params.id })),
  );

  bind.post(`${WEBHOOKS_PATH}/:id/delete`, {
    run: async ({ params, call }) => {
      await call(ops.deleteWebhook, { id: params.id });
      return withNotice(WEBHOOKS_PATH, 'deleted');
    },
  });

  bind.post(`${WEBHOOKS_PATH}/:id/deliveries/:delivery_id/retry`, {
    run: async (ask) => {
      const { id, delivery_id: deliveryId } = ask.params;
      try {
        await ask.call(ops.retryWebhookDelivery, { id, delivery_id: deliveryId });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
        return ask.send(409, await endpointOf(ask, { notice: errorNotice(error.message) }));
      }
      return withNotice(webhookPath(id), 'retried');
    },
  });
}
