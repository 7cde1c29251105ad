// The console's webhooks and their deliveries, API keys, billing and usage: pages and form posts
// of the signed-in scope.
import type { App } from '../../../http/types.ts';
import type { ConsoleModule } from '../module.ts';
import { registerBillingPages } from './billing-routes.ts';
import { registerKeyPages } from './keys-routes.ts';
import { registerWebhookPages } from './webhooks-routes.ts';

export function registerAccountPages(scope: App, module: ConsoleModule): void {
  registerWebhookPages(scope, module);
  registerKeyPages(scope, module);
  registerBillingPages(scope, module);
}
