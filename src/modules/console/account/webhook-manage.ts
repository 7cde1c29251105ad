// An endpoint's secret rotation and deletion from the console, each behind a confirmation page,
// through the WebhooksService the /v1/webhooks routes use: the new secret is shown once, on the
// answer to the rotation's post (no-store), and the previous one keeps signing for 24 hours.
import { html, type Html } from '../../../lib/html.ts';
import type { App } from '../../../http/types.ts';
import type { WebhookView } from '../../webhooks/service.ts';
import { consoleBinder, type Ask } from '../binder.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import { confirmForm } from '../layout.ts';
import type { ConsoleModule } from '../module.ts';
import { revealOnce, sectionPage, when } from './shared.ts';
import { endpointForm, type EndpointForm } from './webhooks-pages.ts';
import { endpointFormOf, urlErrors, WEBHOOKS_SECTION } from './webhooks-routes.ts';

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

function rotatedPage(
  context: SignedInContext,
  rotated: WebhookView & { secret: string; previous_secret_expires_at: string },
): Html {
  const reveal = revealOnce({
    id: 'new-secret',
    heading: `New signing secret of ${rotated.url}`,
    label: 'Signing secret',
    secret: rotated.secret,
    explain: 'Give it to your receiver: it verifies the webhook-signature header with it.',
  });
  return sectionPage(
    context,
    'Signing secret rotated',
    html`<p class="small"><a href="${endpointPath(rotated.id)}">Back to the endpoint</a></p>
<h1>Signing secret rotated</h1>
${reveal}
<p>The previous secret keeps signing until ${when(rotated.previous_secret_expires_at)}.</p>`,
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
  const webhooks = module.dashboard.webhooking.webhooks;
  const ops = module.dashboard.webhooking.operations;
  const bind = consoleBinder(scope, module, WEBHOOKS_SECTION);
  const ENDPOINT = `${CONSOLE_PATH}/webhooks/:webhook_id`;
  const webhookOf = ({ session, params }: Ask) => webhooks.get(session.organizationId, params.webhook_id);
  /** The edit form as posted (an edit has no client_id). */
  const editOf = (ask: Ask) => ({ ...endpointFormOf(ask.request.body), clientId: '' });

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
      return `${endpointPath(webhook.id)}?notice=updated`;
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
      return `${CONSOLE_PATH}/webhooks?notice=deleted`;
    },
  });
}
