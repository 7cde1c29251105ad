// Organizations: sign-up, verification, API keys, whoami.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import type { App } from '../../http/types.ts';
import type { Wirable } from '../../lib/ports.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { organizationOperations, type OrganizationOperations } from './operations.ts';
import { OrganizationsRepository } from './repository.ts';
import { registerOrganizationRoutes } from './routes.ts';
import { OrganizationsService } from './service.ts';

export interface OrganizationsModule {
  organizations: OrganizationsService;
  operations: OrganizationOperations;
  ports: Wirable[];
}

export function build(deps: { db: Kysely<DB>; clock: Clock; mailer: Mailer }): OrganizationsModule {
  const organizations = new OrganizationsService({
    repo: new OrganizationsRepository(deps.db),
    clock: deps.clock,
    mailer: deps.mailer,
  });
  return {
    organizations,
    operations: organizationOperations(organizations),
    ports: Object.values(organizations.ports),
  };
}

export function register(app: App, module: OrganizationsModule, rest: RestBinder): void {
  registerOrganizationRoutes(app, rest, module.operations);
}
