// The agent status operation (contract §9), bound to GET /v1/agent/status and the get_status tool.
import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import type { AgentStatusService } from './service.ts';

const Count = Type.Integer({ minimum: 0 });

const Organization = Type.Object(
  {
    id: Type.String({ description: 'org_... id' }),
    name: Type.String(),
    status: Type.Enum(['unverified', 'active', 'suspended']),
  },
  {
    $id: 'Organization',
    description: 'An organization: the owner of keys, cells and webhooks.',
    examples: [{ id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9', name: 'Acme Bistro', status: 'active' }],
  },
);

export const AgentStatus = Type.Object(
  {
    organization: Organization,
    billing: Nullable(
      Type.Object(
        {
          state: Type.String({ description: 'exempt (billing off), inactive, active, past_due or suspended.' }),
          tier: Nullable(Type.String()),
          prepaid_balance_usd: Type.Number(),
          amount_due_usd: Type.Number(),
        },
        {
          description:
            'The billing state; null for an OAuth token without the billing:read scope (API keys carry every scope).',
        },
      ),
    ),
    cells: Type.Object({ total: Count, active: Count, online: Count, offline: Count, provisioning: Count }),
    messages: Type.Object({ queued: Count, sending: Count, failed_24h: Count }),
    webhooks: Type.Object({ total: Count, failing: Count }),
    rate_limit: Nullable(Type.Object({ requests_per_second: Type.Number(), burst: Type.Integer() })),
    checks: Type.Array(
      Type.Object({ name: Type.String(), status: Type.Enum(['ok', 'warn', 'fail']), detail: Type.String() }),
    ),
  },
  {
    $id: 'AgentStatus',
    description: 'The health of everything an agent relies on, with a check per concern.',
    examples: [
      {
        organization: { id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9', name: 'Acme Bistro', status: 'active' },
        billing: { state: 'active', tier: 'starter', prepaid_balance_usd: 12.5, amount_due_usd: 0 },
        cells: { total: 1, active: 1, online: 1, offline: 0, provisioning: 0 },
        messages: { queued: 0, sending: 0, failed_24h: 0 },
        webhooks: { total: 1, failing: 0 },
        rate_limit: { requests_per_second: 50, burst: 100 },
        checks: [{ name: 'cells_online', status: 'ok', detail: 'All active cells are online.' }],
      },
    ],
  },
);

export function statusOperations(status: AgentStatusService) {
  return {
    getStatus: defineOperation({
      name: 'get_status',
      summary: 'What is wrong, in one call',
      description:
        'Organization, billing, cells, message and webhook health, the rate limit, and checks with what to do about each. The billing state and balance need billing:read: without it `billing` is null and the billing check only says so.',
      scope: null,
      allowUnverified: true,
      idempotency: 'none',
      input: Type.Object({}),
      output: AgentStatus,
      run: (ctx) => status.status(ctx.principal),
    }),
  };
}

export type StatusOperations = ReturnType<typeof statusOperations>;
