// Agent status (contract §9): the one call an agent makes to know what is wrong.
import type { RateLimitPolicy } from '../../lib/rate-limit-policy.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { statusOperations, type StatusOperations } from './operations.ts';
import { registerAgentStatusRoutes } from './routes.ts';
import { AgentStatusService, type BillingStatusPort } from './service.ts';

export interface StatusModule {
  status: AgentStatusService;
  operations: StatusOperations;
}

export function build(deps: {
  cells: CellsService;
  messages: MessagesService;
  webhooks: WebhooksService;
  rateLimit: RateLimitPolicy;
  billing?: BillingStatusPort;
}): StatusModule {
  const status = new AgentStatusService(deps);
  return { status, operations: statusOperations(status) };
}

export function register(app: App, module: StatusModule, rest: RestBinder): void {
  registerAgentStatusRoutes(app, rest, module.operations);
}
