// An endpoint's secret rotation and deletion from the console, each behind a confirmation page,
// through the WebhooksService the /v1/webhooks routes use: the new secret is shown once, on the
// answer to the rotation's post (no-store), and the previous one keeps signing for 24 hours.
import { html, type Html } from '../../../lib/html.ts';
import type { App } from '../../../http/types.ts';
import type { WebhookView } from '../../webhooks/service.ts';
import { contextOf, redirect, type SignedInContext } from '../guard.ts';
import { CONSOLE_PATH, sendPage } from '../http.ts';
import { confirmForm } from '../layout.ts';
import type { ConsoleModule } from '../module.ts';
import { consoleActor } from '../act.ts';
import { fieldErrorsOf, HIDDEN, orPage, param, PUBLIC, revealOnce, sectionPage, text, when } from './shared.ts';
import { endpointForm, type EndpointForm } from './webhooks-pages.ts';
import { endpointFormOf } from './webhooks-routes.ts';

const BACK = { href: `${CONSOLE_PATH}/webhooks`, text: 'Back to webhooks' };
const endpointPath = (id: string) => `${CONSOLE_PATH}/webhooks/${encodeURIComponent(id)}`;

function confirmPage(context: SignedInContext, webhook: WebhookView, action: 'rotate' | 'delete'): Html {
  const rotate = action === 'rotate';
  return sectionPage(
    context,
    rotate ? 'Rotate the signing secret?' : 'Delete this endpoint?',
    html`<p class="small"><a href="${endpointPath(webhook.id)}">Back to the endpoint</a></p>
<h1>${rotate ? 'Rotate the signing secret?' : 'Delete this endpoint?'}</h1>
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

function rotatedPage(context: SignedInContext, webhook: WebhookView, secret: string, previousUntil: string): Html {
  return sectionPage(
    context,
    'Signing secret rotated',
    html`<p class="small"><a href="${endpointPath(webhook.id)}">Back to the endpoint</a></p>
<h1>Signing secret rotated</h1>
${revealOnce({
  id: 'new-secret',
  heading: `New signing secret of ${webhook.url}`,
  label: 'Signing secret',
  secret,
  explain: 'Give it to your receiver: it verifies the webhook-signature header with it.',
})}
<p>The previous secret keeps signing until ${when(previousUntil)}.</p>`,
  );
}

function editPage(context: SignedInContext, webhook: WebhookView, form: EndpointForm): Html {
  return sectionPage(
    context,
    `${form.errors ? 'Error: ' : ''}Edit ${webhook.url}`,
    html`<p class="small"><a href="${endpointPath(webhook.id)}">Back to the endpoint</a></p>
<h1>Edit <span class="mono">${webhook.url}</span></h1>
${endpointForm(context, form, { action: `${endpointPath(webhook.id)}/edit`, cancel: endpointPath(webhook.id) })}`,
  );
}

export function registerWebhookManagement(scope: App, module: ConsoleModule): void {
  const { guard } = module;
  const webhooks = module.dashboard.webhooking.webhooks;
  const ops = module.dashboard.webhooking.operations;
  const act = consoleActor(module.dashboard.invoker);

  scope.get(`${CONSOLE_PATH}/webhooks/:webhook_id/edit`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const context = contextOf(session, 'webhooks');
    const webhook = await orPage(reply, context, BACK, 'webhook endpoint', () =>
      webhooks.get(session.organizationId, param(request.params, 'webhook_id')),
    );
    if (!webhook) return reply;
    const form: EndpointForm = { clientId: '', url: webhook.url, eventTypes: webhook.event_types };
    return sendPage(reply, 200, editPage(context, webhook, form));
  });

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/edit`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'webhooks');
      const webhookId = param(request.params, 'webhook_id');
      const webhook = await orPage(reply, context, BACK, 'webhook endpoint', () =>
        webhooks.get(session.organizationId, webhookId),
      );
      if (!webhook) return reply;
      const form = { ...endpointFormOf(request.body), clientId: '' };
      if (form.errors) return sendPage(reply, 400, editPage(context, webhook, form));
      try {
        await act(session, ops.updateWebhook, { id: webhookId, url: form.url, event_types: form.eventTypes });
      } catch (error) {
        const fields = fieldErrorsOf(error, { url: 'The URL' });
        if (!fields) throw error;
        const errors = { url: fields.url ?? Object.values(fields).join(' ') };
        return sendPage(reply, 400, editPage(context, webhook, { ...form, errors }));
      }
      return redirect(reply, `${endpointPath(webhookId)}?notice=updated`);
    },
  );

  for (const action of ['rotate', 'delete'] as const) {
    scope.get(
      `${CONSOLE_PATH}/webhooks/:webhook_id/${action}`,
      { config: PUBLIC, schema: HIDDEN },
      async (request, reply) => {
        const session = await guard.page(request, reply);
        if (!session) return reply;
        const context = contextOf(session, 'webhooks');
        const webhook = await orPage(reply, context, BACK, 'webhook endpoint', () =>
          webhooks.get(session.organizationId, param(request.params, 'webhook_id')),
        );
        if (!webhook) return reply;
        return sendPage(reply, 200, confirmPage(context, webhook, action));
      },
    );
  }

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/rotate`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const context = contextOf(session, 'webhooks');
      const rotated = await orPage(reply, context, BACK, 'webhook endpoint', () =>
        act<WebhookView & { secret: string; previous_secret_expires_at: string }>(session, ops.rotateWebhookSecret, {
          id: param(request.params, 'webhook_id'),
        }),
      );
      if (!rotated) return reply;
      return sendPage(reply, 200, rotatedPage(context, rotated, rotated.secret, rotated.previous_secret_expires_at));
    },
  );

  scope.post(
    `${CONSOLE_PATH}/webhooks/:webhook_id/delete`,
    { config: PUBLIC, schema: HIDDEN },
    async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const deleted = await orPage(reply, contextOf(session, 'webhooks'), BACK, 'webhook endpoint', async () => {
        await act(session, ops.deleteWebhook, { id: param(request.params, 'webhook_id') });
        return true;
      });
      if (!deleted) return reply;
      return redirect(reply, `${CONSOLE_PATH}/webhooks?notice=deleted`);
    },
  );
}
