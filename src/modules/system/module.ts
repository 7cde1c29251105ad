// Health and the OpenAPI document: no service of their own.
import type { Database } from '../../db/database.ts';
import type { App } from '../../http/types.ts';
import { registerSystemRoutes } from './routes.ts';

export function register(app: App, deps: { database: Database }): void {
  registerSystemRoutes(app, deps.database);
}
