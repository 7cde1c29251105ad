// Pods' sending operations (src/operations): a draft's send (of a cell, of a pod) and a pod's
// cycle job, bound to their REST routes; each writes its idempotent outcome in its transaction.
import { Type } from 'typebox';
import { Body } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import { MessageBody, ScheduleFields } from '../messages/schemas.ts';
import { Message } from '../messages/views.ts';
import type { CycleService } from './cycle-service.ts';
import type { DraftsService } from './drafts-service.ts';
import { ClientId } from './schemas.ts';
import type { Scopes } from './scope.ts';
import { CycleJob } from './views.ts';

export const CycleRequest = Body(
  {
    mode: Type.Enum(['ring', 'broadcast'], {
      description:
        'ring: each active cell texts the next. broadcast: one message per distinct recipient, over the active cells.',
    }),
    body: Type.Optional({
      ...MessageBody,
      description: 'The text; required for a broadcast, a default ring-check text for a ring.',
    }),
    to: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 10_000,
        description:
          'Broadcast recipients, E.164 (1-10,000; duplicates count once). A bad one is reported by its index (to.<i>). Exactly one of to and list_id.',
      }),
    ),
    list_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Broadcast to a contact list of the organization (lst_...). Exactly one of to and list_id.',
      }),
    ),
    client_id: Type.Optional(ClientId),
    send_at: Type.Optional({
      ...ScheduleFields.send_at,
      description:
        'A broadcast only: its messages are scheduled for this ISO 8601 time with offset (at most 30 days ahead), and queued and charged then.',
    }),
  },
  {
    examples: [
      { mode: 'ring' },
      {
        mode: 'broadcast',
        body: 'We open at 9 tomorrow.',
        list_id: 'lst_01jdx3e6f7g8h9j0k1m2n3p4q5',
        client_id: 'opening-hours-1',
      },
    ],
  },
);

const id = (prefix: string) => Type.String({ minLength: 1, maxLength: 64, description: `${prefix}_... id` });

const DRAFT_SEND_ERRORS = ['conflict', 'cell_not_active', 'recipient_opted_out', 'mms_unsupported'] as const;

export function podOperations(deps: { drafts: DraftsService; cycles: CycleService; scopes: Scopes }) {
  const { drafts, cycles, scopes } = deps;
  const sendDraft = {
    scope: 'messages:send',
    idempotency: 'optional',
    recorded: true,
    status: 202,
    errors: [...DRAFT_SEND_ERRORS],
    output: Message,
  } as const;
  return {
    sendCellDraft: defineOperation({
      ...sendDraft,
      name: 'send_cell_draft',
      summary: 'Send a draft of a cell',
      description:
        "Queues the draft's message from the cell and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header.",
      input: Type.Object({ cell_id: id('cell'), draft_id: id('drf'), ...ScheduleFields }),
      // The scope is resolved inside the work: when it fails, a used key still replays its answer.
      run: async (ctx, { cell_id, draft_id, ...schedule }) =>
        drafts.sendFromCell(await scopes.resolve(ctx.organizationId, 'cell', cell_id), draft_id, ctx.record, schedule),
    }),
    sendPodDraft: defineOperation({
      ...sendDraft,
      name: 'send_pod_draft',
      summary: 'Send a draft of a pod',
      description:
        "Queues the draft's message from the pod cell the sticky rotation rule picks (the cell a recipient already talks to, else the next active cell) and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header.",
      input: Type.Object({ pod_id: id('pod'), draft_id: id('drf'), ...ScheduleFields }),
      // A pod draft's own lookup checks its pod.
      run: (ctx, { pod_id, draft_id, ...schedule }) =>
        drafts.sendFromPod(ctx.organizationId, pod_id, draft_id, ctx.record, schedule),
    }),
    startPodCycle: defineOperation({
      name: 'start_pod_cycle',
      summary: 'Start a cycle job (ring or broadcast)',
      description:
        'Answers 202 with the job; the messages are queued in the background and the job is followed to its end (cycle.completed / cycle.failed). A ring needs at least 2 active cells (else 409 conflict). A broadcast sends one message per distinct recipient, each from the cell it already talks to, else spread evenly over the active cells; recipients who texted STOP to a pod cell are skipped. Idempotency-Key header or client_id: a retry returns the same job (Idempotent-Replayed: true).',
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: ['conflict', 'client_id_conflict'],
      input: Type.Object({ id: id('pod'), ...CycleRequest.properties }, { additionalProperties: false }),
      output: CycleJob,
      run: (ctx, { id: podId, ...input }) => cycles.start(ctx.organizationId, podId, input, ctx.record),
    }),
  };
}

export type PodOperations = ReturnType<typeof podOperations>;
