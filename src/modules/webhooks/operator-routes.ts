// The operator's webhook endpoints (contract §11): /v1/admin/webhooks, the shapes, signing,
// retries and disabling of an organization's (§6), with the phones' events (device.offline, ...)
// and admin token auth. Owner null in the service: endpoints of no organization.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { DEVICE_EVENT_TYPES } from '../devices/events.ts';
import {
  createWebhookBody,
  Delivery,
  DeliveryList,
  DeliveryParams,
  updateWebhookBody,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookSecretRotation,
  WebhookWithSecret,
} from './schemas.ts';
import type { WebhooksService } from './service.ts';

const TAGS = ['Admin'];
const OPERATOR = null;
/** What an operator endpoint's event_types takes: `*`, `device.*` and the five device events. */
export const OPERATOR_EVENT_TYPE_FILTERS: string[] = ['*', 'device.*', ...DEVICE_EVENT_TYPES];

export function registerOperatorWebhookRoutes(app: App, webhooks: WebhooksService): void {
  app.post(
    '/v1/admin/webhooks',
    {
      config: { auth: 'admin', errors: ['client_id_conflict'] },
      schema: {
        operationId: 'createOperatorWebhook',
        tags: TAGS,
        summary: 'Create an operator webhook endpoint (device events)',
        description:
          "Receives device.offline, device.online, device.battery_low, device.unhealthy and device.recovered, with the Device (admin view) as data and organization_id null; signed and retried as an organization's webhooks. 201 with the signing secret; the same client_id and body again is 200 without it; another body is 409 client_id_conflict.",
        body: createWebhookBody(OPERATOR_EVENT_TYPE_FILTERS, 'device.*'),
        response: {
          200: Described(
            Webhook,
            'The endpoint created earlier with this client_id and the same body (without its secret).',
          ),
          201: Described(WebhookWithSecret, 'The created endpoint, with its signing secret (shown once).'),
        },
      },
    },
    async (request, reply) => {
      const { created, webhook } = await webhooks.create(OPERATOR, request.body);
      return reply.code(created ? 201 : 200).send(webhook);
    },
  );

  app.get(
    '/v1/admin/webhooks',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'listOperatorWebhooks',
        tags: TAGS,
        summary: 'List operator webhook endpoints',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(WebhookList, 'A page of operator webhook endpoints, newest first.') },
      },
    },
    async (request) => webhooks.list(OPERATOR, request.query),
  );

  app.get(
    '/v1/admin/webhooks/:id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'getOperatorWebhook',
        tags: TAGS,
        summary: 'Read an operator webhook endpoint',
        params: WebhookParams,
        response: { 200: Described(Webhook, 'The operator webhook endpoint.') },
      },
    },
    async (request) => webhooks.get(OPERATOR, request.params.id),
  );

  app.patch(
    '/v1/admin/webhooks/:id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'updateOperatorWebhook',
        tags: TAGS,
        summary: 'Update an operator webhook endpoint',
        description:
          'Enabling a disabled endpoint clears disabled_reason, starts a fresh failure window and resumes its queued deliveries.',
        params: WebhookParams,
        body: updateWebhookBody(OPERATOR_EVENT_TYPE_FILTERS, 'device.*'),
        response: { 200: Described(Webhook, 'The updated operator webhook endpoint.') },
      },
    },
    async (request) => webhooks.update(OPERATOR, request.params.id, request.body),
  );

  app.delete(
    '/v1/admin/webhooks/:id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'deleteOperatorWebhook',
        tags: TAGS,
        summary: 'Delete an operator webhook endpoint',
        description: 'Queued deliveries are abandoned.',
        params: WebhookParams,
        response: { 204: NoContent('Deleted.') },
      },
    },
    async (request, reply) => {
      await webhooks.remove(OPERATOR, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/webhooks/:id/rotate-secret',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'rotateOperatorWebhookSecret',
        tags: TAGS,
        summary: 'Rotate the signing secret of an operator webhook endpoint',
        description: 'Returns the new secret; for 24 hours deliveries carry two signatures (new and previous secret).',
        params: WebhookParams,
        response: {
          200: Described(
            WebhookSecretRotation,
            'The operator webhook endpoint with its new signing secret (shown once).',
          ),
        },
      },
    },
    async (request) => webhooks.rotateSecret(OPERATOR, request.params.id),
  );

  app.get(
    '/v1/admin/webhooks/:id/deliveries',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'listOperatorWebhookDeliveries',
        tags: TAGS,
        summary: 'List deliveries of an operator webhook endpoint',
        description: 'Newest first, each with its attempts (time, status code, latency, error).',
        params: WebhookParams,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(DeliveryList, 'A page of deliveries, newest first.') },
      },
    },
    async (request) => webhooks.listDeliveries(OPERATOR, request.params.id, request.query),
  );

  app.post(
    '/v1/admin/webhooks/:id/deliveries/:delivery_id/retry',
    {
      config: { auth: 'admin', errors: ['conflict'] },
      schema: {
        operationId: 'retryOperatorWebhookDelivery',
        tags: TAGS,
        summary: 'Retry a delivery of an operator webhook endpoint now',
        description:
          'Queues an attempt now, also for a delivery that already succeeded or failed. 409 while the endpoint is disabled or an attempt is in flight.',
        params: DeliveryParams,
        response: { 202: Described(Delivery, 'The delivery, queued for an attempt now.') },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.retryDelivery(OPERATOR, request.params.id, request.params.delivery_id)),
  );
}
