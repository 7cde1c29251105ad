// GET /v1/agent/status (contract §9); unverified organizations may call it.
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Nullable } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { AgentStatusService } from './service.ts';

const Count = Type.Integer({ minimum: 0 });

const AgentStatus = Type.Object({
  organization: Type.Object({ id: Type.String(), name: Type.String(), status: Type.Enum(['unverified', 'active', 'suspended']) }),
  billing: Type.Object({ state: Type.String(), tier: Nullable(Type.String()) }),
  cells: Type.Object({ total: Count, active: Count, online: Count, offline: Count, provisioning: Count }),
  messages: Type.Object({ queued: Count, sending: Count, failed_24h: Count }),
  webhooks: Type.Object({ total: Count, failing: Count }),
  rate_limit: Nullable(Type.Object({ requests_per_second: Type.Number(), burst: Type.Integer() })),
  checks: Type.Array(Type.Object({ name: Type.String(), status: Type.Enum(['ok', 'warn', 'fail']), detail: Type.String() })),
});

export function registerAgentStatusRoutes(app: App, status: AgentStatusService): void {
  app.get('/v1/agent/status', {
    config: { auth: 'agent', allowUnverified: true },
    schema: {
      tags: ['Organizations'],
      summary: 'What is wrong, in one call',
      description: 'Organization, cells, message and webhook health, the rate limit, and checks with what to do about each.',
      response: { 200: AgentStatus },
    },
  }, async (request) => status.status(agentOf(request)));
}
