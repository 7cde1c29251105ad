// GET /v1/agent/status (contract §9); unverified organizations may call it.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { StatusOperations } from './operations.ts';

export function registerAgentStatusRoutes(app: App, rest: RestBinder, ops: StatusOperations): void {
  const description = 'The status of the organization and its checks.';
  restRoutes(app, rest, ['Organizations'])(ops.getStatus, 'GET', '/v1/agent/status', description, {
    operationId: 'getAgentStatus',
  });
}
