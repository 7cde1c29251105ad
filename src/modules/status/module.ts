// Agent status (contract §9): the one call an agent makes to know what is wrong.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { statusOperations, type StatusOperations } from './operations.ts';
import { registerAgentStatusRoutes } from './routes.ts';
import { AgentStatusService } from './service.ts';

export interface StatusModule {
  status: AgentStatusService;
  operations: StatusOperations;
}

export function build(deps: ConstructorParameters<typeof AgentStatusService>[0]): StatusModule {
  const status = new AgentStatusService(deps);
  return { status, operations: statusOperations(status) };
}

export function register(app: App, module: StatusModule, rest: RestBinder): void {
  registerAgentStatusRoutes(app, rest, module.operations);
}
