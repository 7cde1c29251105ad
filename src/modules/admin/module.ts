// The operator's surface: admin tokens, the dev outbox and the operator audit log.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import { AdminRepository } from './repository.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { adminOperations, type AdminOperations } from './operations.ts';
import { registerAdminRoutes } from './routes.ts';
import { AdminService } from './service.ts';
import { OperatorAudit } from './audit.ts';

export interface AdminModule {
  admin: AdminService;
  audit: OperatorAudit;
  operations: AdminOperations;
}

export function build(deps: { db: Kysely<DB>; clock: Clock; bootstrapToken: string | null }): AdminModule {
  const repo = new AdminRepository(deps.db);
  const admin = new AdminService({ repo, clock: deps.clock, bootstrapToken: deps.bootstrapToken });
  const audit = new OperatorAudit({ repo, clock: deps.clock });
  return { admin, audit, operations: adminOperations(admin, audit) };
}

export function register(app: App, module: AdminModule, rest: RestBinder): void {
  registerAdminRoutes(app, rest, module.operations);
}
