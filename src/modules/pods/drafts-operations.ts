// Drafts' operations under a cell or a pod (contract §5): one set per kind, the same rules.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { MediaUrls, MessageBody, normalizedPhoneOf, PhoneInput, ScheduleFields } from '../messages/schemas.ts';
import { Message } from '../messages/views.ts';
import type { DraftsService } from './drafts-service.ts';
import { ClientId, id, idOf, podOperation, scopedInput } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { Draft, DRAFT_EXAMPLE, DraftList } from './views.ts';

const SEND_ERRORS = ['conflict', 'cell_not_active', 'recipient_opted_out', 'mms_unsupported'] as const;
const DraftId = { draft_id: id('drf') };

/** Each operation's name (its operationId and MCP tool name), written out so a search finds it. */
const NAMES = {
  cell: {
    create: 'create_cell_draft',
    list: 'list_cell_drafts',
    get: 'get_cell_draft',
    update: 'update_cell_draft',
    discard: 'discard_cell_draft',
    send: 'send_cell_draft',
  },
  pod: {
    create: 'create_pod_draft',
    list: 'list_pod_drafts',
    get: 'get_pod_draft',
    update: 'update_pod_draft',
    discard: 'discard_pod_draft',
    send: 'send_pod_draft',
  },
} as const satisfies Record<ScopeKind, Record<string, string>>;

export function draftOperations(kind: ScopeKind, deps: { drafts: DraftsService; scopes: Scopes }) {
  const { drafts, scopes } = deps;
  const of = `of a ${kind}`;
  const scopeOf = (organizationId: string, input: { cell_id?: string; pod_id?: string }) =>
    scopes.resolve(organizationId, kind, idOf(kind, input));
  const normalizedTo = normalizedPhoneOf('to');
  return {
    create: podOperation({
      name: NAMES[kind].create,
      summary: `Create a draft ${of}`,
      description:
        'Repeating the same body with the same client_id returns the draft (as it is now) with 200; another body is 409 client_id_conflict.',
      scope: 'messages:send',
      status: 201,
      errors: ['client_id_conflict', 'conflict'],
      input: scopedInput(
        kind,
        { client_id: ClientId, to: PhoneInput, body: MessageBody, media_urls: Type.Optional(MediaUrls) },
        { examples: [{ client_id: 'draft-42', to: '+14155550199', body: 'Your table for two is ready.' }] },
      ),
      prepare: normalizedTo,
      output: Type.Object({ created: Type.Boolean(), draft: Draft }),
      run: async (ctx, { cell_id, pod_id, ...input }) =>
        drafts.create(await scopeOf(ctx.organizationId, { cell_id, pod_id }), input),
    }),
    list: podOperation({
      name: NAMES[kind].list,
      summary: `List drafts ${of}, newest first`,
      scope: 'messages:read',
      input: scopedInput(kind, {
        ...PaginationQuery,
        status: Type.Optional(Type.Enum(['draft', 'sent', 'discarded'])),
      }),
      output: DraftList,
      run: async (ctx, { cell_id, pod_id, ...query }) =>
        drafts.list(await scopeOf(ctx.organizationId, { cell_id, pod_id }), query),
    }),
    get: podOperation({
      name: NAMES[kind].get,
      summary: `Read a draft ${of}`,
      scope: 'messages:read',
      input: scopedInput(kind, DraftId),
      output: Draft,
      run: async (ctx, input) => drafts.get(await scopeOf(ctx.organizationId, input), input.draft_id),
    }),
    update: podOperation({
      name: NAMES[kind].update,
      summary: `Edit a draft ${of}`,
      description: 'Only while it is a draft; a sent or discarded draft is 409 conflict.',
      scope: 'messages:send',
      errors: ['conflict'],
      input: scopedInput(kind, {
        ...DraftId,
        to: Type.Optional(PhoneInput),
        body: Type.Optional(MessageBody),
        media_urls: Type.Optional(MediaUrls),
      }),
      prepare: normalizedTo,
      output: Draft,
      run: async (ctx, { cell_id, pod_id, draft_id, ...input }) =>
        drafts.update(await scopeOf(ctx.organizationId, { cell_id, pod_id }), draft_id, input),
    }),
    discard: podOperation({
      name: NAMES[kind].discard,
      summary: `Discard a draft ${of}`,
      description:
        'The draft stays readable with status discarded (discarding it again answers the same); a sent draft is 409 conflict.',
      scope: 'messages:send',
      errors: ['conflict'],
      input: scopedInput(kind, DraftId),
      output: Draft,
      run: async (ctx, input) => drafts.discard(await scopeOf(ctx.organizationId, input), input.draft_id),
    }),
    send: podOperation({
      name: NAMES[kind].send,
      summary: `Send a draft ${of}`,
      description:
        kind === 'cell'
          ? "Queues the draft's message from the cell and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header."
          : "Queues the draft's message from the pod cell the sticky rotation rule picks (the cell a recipient already talks to, else the next active cell) and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header.",
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: [...SEND_ERRORS],
      input: scopedInput(
        kind,
        { ...DraftId, ...ScheduleFields },
        {
          description: 'Optional: send_at and send_now; a send without a body goes out now.',
          examples: [
            { draft_id: DRAFT_EXAMPLE.id },
            { draft_id: DRAFT_EXAMPLE.id, send_at: '2026-11-22T09:00:00-05:00' },
            { draft_id: DRAFT_EXAMPLE.id, send_now: true },
          ],
        },
      ),
      output: Message,
      // The scope is resolved inside the work: when it fails, a used key still replays its answer.
      // A pod draft's own lookup checks its pod.
      run: async (ctx, { cell_id, pod_id, draft_id, ...schedule }) =>
        kind === 'cell'
          ? drafts.sendFromCell(await scopeOf(ctx.organizationId, { cell_id }), draft_id, ctx.record, schedule)
          : drafts.sendFromPod(ctx.organizationId, idOf(kind, { pod_id }), draft_id, ctx.record, schedule),
    }),
  };
}

export type DraftOperations = ReturnType<typeof draftOperations>;
