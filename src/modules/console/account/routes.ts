// The console's webhooks and their deliveries, API keys, billing and usage.
import type { App } from '../../../http/types.ts';
import type { ConsoleModule } from '../module.ts';

export function registerAccountPages(_app: App, _module: ConsoleModule): void {}
