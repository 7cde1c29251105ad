// GET /v1/agent/status (contract §9); unverified organizations may call it.
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { AgentStatus, type StatusOperations } from './operations.ts';

export function registerAgentStatusRoutes(app: App, rest: RestBinder, ops: StatusOperations): void {
  rest.bind(app, ops.getStatus, {
    method: 'GET',
    url: '/v1/agent/status',
    operationId: 'getAgentStatus',
    tags: ['Organizations'],
    response: Described(AgentStatus, 'The status of the organization and its checks.'),
  });
}
