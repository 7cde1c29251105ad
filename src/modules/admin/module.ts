// The operator's surface: admin tokens and the dev outbox.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import { AdminRepository } from './repository.ts';
import { registerAdminRoutes } from './routes.ts';
import { AdminService } from './service.ts';

export interface AdminModule {
  admin: AdminService;
}

export function build(deps: { db: Kysely<DB>; clock: Clock; bootstrapToken: string | null }): AdminModule {
  return {
    admin: new AdminService({
      repo: new AdminRepository(deps.db),
      clock: deps.clock,
      bootstrapToken: deps.bootstrapToken,
    }),
  };
}

export function register(app: App, module: AdminModule): void {
  registerAdminRoutes(app, module.admin);
}
