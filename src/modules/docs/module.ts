// The landing, the error pages and the API reference: no service of their own, read from the
// error table and the OpenAPI document.
import type { Config } from '../../config.ts';
import type { App } from '../../http/types.ts';
import { registerFavicon } from './favicon.ts';
import { registerReferenceRoutes } from './reference-routes.ts';
import { registerDocsRoutes } from './routes.ts';

export function register(app: App, deps: { config: Config }): void {
  registerDocsRoutes(app, deps.config);
  registerReferenceRoutes(app, deps.config);
  registerFavicon(app);
}
