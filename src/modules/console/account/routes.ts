// The console's webhooks and their deliveries, API keys, billing and usage: pages and form posts
// in one scope of their own, with the console's form parser.
import type { App } from '../../../http/types.ts';
import { registerFormParser } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { registerBillingPages } from './billing-routes.ts';
import { registerKeyPages } from './keys-routes.ts';
import { registerWebhookPages } from './webhooks-routes.ts';
import { registerWebhookManagement } from './webhook-manage.ts';

export function registerAccountPages(app: App, module: ConsoleModule): void {
  app.register(async (plugin) => {
    registerFormParser(plugin);
    registerWebhookPages(plugin, module);
    registerWebhookManagement(plugin, module);
    registerKeyPages(plugin, module);
    registerBillingPages(plugin, module);
  });
}
