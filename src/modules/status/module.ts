// Agent status (contract §9): the one call an agent makes to know what is wrong.
import type { RateLimitPolicy } from '../../http/rate-limit.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { registerAgentStatusRoutes } from './routes.ts';
import { AgentStatusService, type BillingStatusPort } from './service.ts';

export interface StatusModule {
  status: AgentStatusService;
}

export function build(deps: {
  cells: CellsService;
  messages: MessagesService;
  webhooks: WebhooksService;
  rateLimit: RateLimitPolicy;
  billing?: BillingStatusPort;
}): StatusModule {
  return { status: new AgentStatusService(deps) };
}

export function register(app: App, module: StatusModule): void {
  registerAgentStatusRoutes(app, module.status);
}
