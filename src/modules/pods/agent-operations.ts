// Pods' operation only MCP binds: quote_broadcast, the price start_cycle (the REST cycle
// operation, ./operations.ts) answers until it is confirmed.
import { invalidField } from '../../lib/errors.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { countSegments } from '../../lib/segments.ts';
import type { ChargeQuote } from '../billing/enforcement.ts';
import { ChargeQuote as ChargeQuoteSchema } from '../billing/operations.ts';
import type { ListsService } from './lists-service.ts';
import { StartCycleInput } from './operations.ts';
import { podOperation } from './schemas.ts';
import type { PodsService } from './service.ts';

export interface PodQuoteDeps {
  pods: PodsService;
  lists: ListsService;
  /** Billing's quote of sends (enforcement.ts sendsQuote). */
  charges: { sendsQuote(organizationId: string, count: number, segments: number): Promise<ChargeQuote> };
}

export function agentPodOperations(deps: PodQuoteDeps) {
  return {
    quoteBroadcast: podOperation({
      name: 'quote_broadcast',
      summary: 'What a broadcast would cost now',
      description: 'One text per distinct recipient (of `to`, or the list), priced per segment, charging nothing.',
      scope: 'messages:send',
      errors: ['not_found'],
      input: StartCycleInput,
      output: ChargeQuoteSchema,
      run: async (ctx, input) => {
        await deps.pods.owned(ctx.organizationId, input.pod_id);
        let count: number;
        if (input.list_id !== undefined) {
          const list = await deps.lists.findOwned(ctx.organizationId, input.list_id);
          if (!list) throw invalidField('list_id', 'not_found', `No list ${input.list_id} in this organization.`);
          count = list.number_count;
        } else count = new Set((input.to ?? []).map((to) => normalizePhone(to) ?? to)).size;
        return deps.charges.sendsQuote(ctx.organizationId, count, countSegments(input.body ?? '').segments);
      },
    }),
  };
}

export type AgentPodOperations = ReturnType<typeof agentPodOperations>;
