// The landing and the error pages: no service of their own, read from the error table and the
// OpenAPI operations.
import type { Config } from '../../config.ts';
import type { App } from '../../http/types.ts';
import { registerDocsRoutes } from './routes.ts';

export function register(app: App, deps: { config: Config }): void {
  registerDocsRoutes(app, deps.config);
}
