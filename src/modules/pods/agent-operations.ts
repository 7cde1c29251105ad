// Pods' operations only MCP binds (list_pods, send_from_pod, start_cycle, quote_broadcast); the
// REST routes' operations are in ./operations.ts.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { invalidField } from '../../lib/errors.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { countSegments } from '../../lib/segments.ts';
import { defineOperation } from '../../operations/operation.ts';
import type { ChargeQuote } from '../billing/enforcement.ts';
import { ChargeQuote as ChargeQuoteSchema } from '../billing/operations.ts';
import { Message } from '../messages/views.ts';
import type { CycleService } from './cycle-service.ts';
import type { DraftsService } from './drafts-service.ts';
import type { ListsService } from './lists-service.ts';
import { CycleRequest } from './operations.ts';
import type { PodsService } from './service.ts';
import { CycleJob, PodList } from './views.ts';

const id = (prefix: string) => Type.String({ minLength: 1, maxLength: 64, description: `${prefix}_... id` });

/** The body of POST /v1/pods/{id}/messages/cycle (the REST operation's), with the pod's id. */
export const AgentStartCycleInput = Type.Object(
  { pod_id: id('pod'), ...CycleRequest.properties },
  { additionalProperties: false },
);

export interface PodOperationDeps {
  pods: PodsService;
  drafts: DraftsService;
  cycles: CycleService;
  lists: ListsService;
  /** Billing's quote of sends (enforcement.ts sendsQuote). */
  charges: { sendsQuote(organizationId: string, count: number, segments: number): Promise<ChargeQuote> };
}

export function agentPodOperations(deps: PodOperationDeps) {
  return {
    quoteBroadcast: defineOperation({
      name: 'quote_broadcast',
      summary: 'What a broadcast would cost now',
      description: 'One text per distinct recipient (of `to`, or the list), priced per segment, charging nothing.',
      scope: 'messages:send',
      idempotency: 'none',
      errors: ['not_found'],
      input: AgentStartCycleInput,
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
    listPods: defineOperation({
      name: 'list_pods',
      summary: 'List pods, newest first',
      description: 'The sender pools of the organization, each with its cells.',
      scope: 'cells:read',
      idempotency: 'none',
      errors: [],
      input: Type.Object(PaginationQuery, { additionalProperties: false }),
      output: PodList,
      run: (ctx, query) => deps.pods.list(ctx.organizationId, query),
    }),
    sendFromPod: defineOperation({
      name: 'send_from_pod',
      summary: 'Send a draft of a pod',
      description:
        "Queues the pod draft's message from the pod cell the sticky rotation rule picks (the cell the recipient already talks to, else the next active cell) and marks the draft sent. A draft that is not `draft` is 409 conflict.",
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: ['conflict', 'cell_not_active', 'recipient_opted_out', 'mms_unsupported', 'payment_required'],
      input: Type.Object({ pod_id: id('pod'), draft_id: id('drf') }, { additionalProperties: false }),
      output: Message,
      run: (ctx, input) => deps.drafts.sendFromPod(ctx.organizationId, input.pod_id, input.draft_id, ctx.record),
    }),
    startCycle: defineOperation({
      name: 'start_cycle',
      summary: 'Start a cycle job (ring or broadcast)',
      description:
        'Queues a ring (each active cell texts the next; at least 2 active cells) or a broadcast (one message per distinct recipient, each from the cell it already talks to, else spread over the active cells). Answers the job; its messages are queued in the background.',
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: ['conflict', 'client_id_conflict', 'payment_required'],
      input: AgentStartCycleInput,
      output: CycleJob,
      run: async (ctx, { pod_id, ...input }) =>
        (await deps.cycles.start(ctx.organizationId, pod_id, input, ctx.record)).job,
    }),
  };
}

export type AgentPodOperations = ReturnType<typeof agentPodOperations>;
