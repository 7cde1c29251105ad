// The operations of drafts, contact lists and ignore lists under a cell or a pod (contract §5):
// one set per kind and resource, the same rules.
import { Type } from 'typebox';
import type { RunContext } from '../../operations/operation.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { MediaUrls, MessageBody, normalizedPhoneOf, PhoneInput, ScheduleFields } from '../messages/schemas.ts';
import { Message } from '../messages/views.ts';
import type { DraftsService } from './drafts-service.ts';
import type { IgnoreService } from './ignore-service.ts';
import type { ListsService } from './lists-service.ts';
import { ClientId, id, idOf, Name, Numbers, podOperation, scopedInput } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import {
  ContactList,
  ContactListPage,
  Draft,
  DRAFT_EXAMPLE,
  DraftList,
  IgnoredList,
  IgnoredParticipant,
} from './views.ts';

/** The scope of this kind an input names, once the caller's organization is found to own it (else 404). */
const scopeIn = (scopes: Scopes, kind: ScopeKind) => (ctx: RunContext, input: { cell_id?: string; pod_id?: string }) =>
  scopes.resolve(ctx.organizationId, kind, idOf(kind, input));

// Each operation's name (its operationId and MCP tool name) is written out so a search finds it.

/** A draft's fields (the create's body; an edit takes them but client_id, each optional). */
export const DraftFields = {
  client_id: ClientId,
  to: PhoneInput,
  body: MessageBody,
  media_urls: Type.Optional(MediaUrls),
};
const DraftId = { draft_id: id('drf') };

const DRAFT_NAMES = {
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

export function draftOperations(kind: ScopeKind, { drafts, scopes }: { drafts: DraftsService; scopes: Scopes }) {
  const of = `of a ${kind}`;
  const scopeOf = scopeIn(scopes, kind);
  const normalizedTo = normalizedPhoneOf('to');
  return {
    create: podOperation({
      name: DRAFT_NAMES[kind].create,
      summary: `Create a draft ${of}`,
      description:
        'Repeating the same body with the same client_id returns the draft (as it is now) with 200; another body is 409 client_id_conflict.',
      scope: 'messages:send',
      status: 201,
      errors: ['client_id_conflict', 'conflict'],
      input: scopedInput(kind, DraftFields, {
        examples: [{ client_id: 'draft-42', to: '+14155550199', body: 'Your table for two is ready.' }],
      }),
      prepare: normalizedTo,
      output: Type.Object({ created: Type.Boolean(), draft: Draft }),
      run: async (ctx, input) => drafts.create(await scopeOf(ctx, input), input),
    }),
    list: podOperation({
      name: DRAFT_NAMES[kind].list,
      summary: `List drafts ${of}, newest first`,
      scope: 'messages:read',
      input: scopedInput(kind, {
        ...PaginationQuery,
        status: Type.Optional(Type.Enum(['draft', 'sent', 'discarded'])),
      }),
      output: DraftList,
      run: async (ctx, query) => drafts.list(await scopeOf(ctx, query), query),
    }),
    get: podOperation({
      name: DRAFT_NAMES[kind].get,
      summary: `Read a draft ${of}`,
      scope: 'messages:read',
      input: scopedInput(kind, DraftId),
      output: Draft,
      run: async (ctx, input) => drafts.get(await scopeOf(ctx, input), input.draft_id),
    }),
    update: podOperation({
      name: DRAFT_NAMES[kind].update,
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
      run: async (ctx, input) => drafts.update(await scopeOf(ctx, input), input.draft_id, input),
    }),
    discard: podOperation({
      name: DRAFT_NAMES[kind].discard,
      summary: `Discard a draft ${of}`,
      description:
        'The draft stays readable with status discarded (discarding it again answers the same); a sent draft is 409 conflict.',
      scope: 'messages:send',
      errors: ['conflict'],
      input: scopedInput(kind, DraftId),
      output: Draft,
      run: async (ctx, input) => drafts.discard(await scopeOf(ctx, input), input.draft_id),
    }),
    send: podOperation({
      name: DRAFT_NAMES[kind].send,
      summary: `Send a draft ${of}`,
      description:
        kind === 'cell'
          ? "Queues the draft's message from the cell and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header."
          : "Queues the draft's message from the pod cell the sticky rotation rule picks (the cell a recipient already talks to, else the next active cell) and marks the draft sent; with send_at, or inside quiet hours, the message is scheduled instead. A draft that is not `draft` is 409 conflict. Takes an optional Idempotency-Key header.",
      scope: 'messages:send',
      idempotency: 'optional',
      recorded: true,
      status: 202,
      errors: ['conflict', 'cell_not_active', 'recipient_opted_out', 'mms_unsupported'],
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
          ? drafts.sendFromCell(await scopeOf(ctx, { cell_id }), draft_id, ctx.record, schedule)
          : drafts.sendFromPod(ctx.organizationId, idOf(kind, { pod_id }), draft_id, ctx.record, schedule),
    }),
  };
}

const ListId = { list_id: id('lst') };

const LIST_NAMES = {
  cell: {
    create: 'create_cell_list',
    list: 'list_cell_lists',
    get: 'get_cell_list',
    rename: 'rename_cell_list',
    remove: 'delete_cell_list',
    addNumbers: 'add_cell_list_numbers',
    removeNumbers: 'remove_cell_list_numbers',
  },
  pod: {
    create: 'create_pod_list',
    list: 'list_pod_lists',
    get: 'get_pod_list',
    rename: 'rename_pod_list',
    remove: 'delete_pod_list',
    addNumbers: 'add_pod_list_numbers',
    removeNumbers: 'remove_pod_list_numbers',
  },
} as const satisfies Record<ScopeKind, Record<string, string>>;

export function listOperations(kind: ScopeKind, { lists, scopes }: { lists: ListsService; scopes: Scopes }) {
  const of = `of a ${kind}`;
  const scopeOf = scopeIn(scopes, kind);
  const write = { scope: 'messages:send', output: ContactList } as const;
  return {
    create: podOperation({
      ...write,
      name: LIST_NAMES[kind].create,
      errors: ['conflict'],
      summary: `Create a contact list ${of}`,
      status: 201,
      input: scopedInput(
        kind,
        { name: Name, numbers: Type.Optional(Numbers) },
        { examples: [{ name: 'Regulars', numbers: ['+14155550198', '+14155550199'] }] },
      ),
      run: async (ctx, input) => lists.create(await scopeOf(ctx, input), input),
    }),
    list: podOperation({
      name: LIST_NAMES[kind].list,
      summary: `List the contact lists ${of}, newest first`,
      description: 'Without their numbers; read a list for them.',
      scope: 'messages:read',
      input: scopedInput(kind, PaginationQuery),
      output: ContactListPage,
      run: async (ctx, query) => lists.list(await scopeOf(ctx, query), query),
    }),
    get: podOperation({
      name: LIST_NAMES[kind].get,
      summary: `Read a contact list ${of}`,
      scope: 'messages:read',
      input: scopedInput(kind, ListId),
      output: ContactList,
      run: async (ctx, input) => lists.get(await scopeOf(ctx, input), input.list_id),
    }),
    rename: podOperation({
      ...write,
      name: LIST_NAMES[kind].rename,
      summary: `Rename a contact list ${of}`,
      input: scopedInput(kind, { ...ListId, name: Name }),
      run: async (ctx, input) => lists.rename(await scopeOf(ctx, input), input.list_id, input.name),
    }),
    remove: podOperation({
      ...write,
      name: LIST_NAMES[kind].remove,
      summary: `Delete a contact list ${of}`,
      status: 204,
      input: scopedInput(kind, ListId),
      output: Type.Null(),
      run: async (ctx, input) => lists.remove(await scopeOf(ctx, input), input.list_id).then(() => null),
    }),
    addNumbers: podOperation({
      ...write,
      name: LIST_NAMES[kind].addNumbers,
      errors: ['conflict'],
      summary: `Add numbers to a contact list ${of}`,
      description: 'Numbers already on the list are ignored. The list holds at most 10,000 numbers (more is 400).',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) => lists.addNumbers(await scopeOf(ctx, input), input.list_id, input.numbers),
    }),
    removeNumbers: podOperation({
      ...write,
      name: LIST_NAMES[kind].removeNumbers,
      summary: `Remove numbers from a contact list ${of}`,
      description: 'Numbers not on the list are ignored.',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) => lists.removeNumbers(await scopeOf(ctx, input), input.list_id, input.numbers),
    }),
  };
}

const Participant = {
  participant: Type.String({ minLength: 1, maxLength: 64, description: 'The number, E.164 (URL-encode the +: %2B).' }),
};

const IGNORE_NAMES = {
  cell: { list: 'list_cell_ignored', add: 'ignore_cell_participant', remove: 'unignore_cell_participant' },
  pod: { list: 'list_pod_ignored', add: 'ignore_pod_participant', remove: 'unignore_pod_participant' },
} as const satisfies Record<ScopeKind, Record<string, string>>;

export function ignoreOperations(kind: ScopeKind, { ignore, scopes }: { ignore: IgnoreService; scopes: Scopes }) {
  const where = kind === 'cell' ? 'on this cell' : 'on every cell of this pod';
  const scopeOf = scopeIn(scopes, kind);
  return {
    list: podOperation({
      name: IGNORE_NAMES[kind].list,
      summary: `List the participants ignored ${where}`,
      description: 'Newest first.',
      scope: 'messages:read',
      input: scopedInput(kind, PaginationQuery),
      output: IgnoredList,
      run: async (ctx, query) => ignore.list(await scopeOf(ctx, query), query),
    }),
    add: podOperation({
      name: IGNORE_NAMES[kind].add,
      summary: `Ignore a participant ${where}`,
      description:
        'Their inbound texts are still stored (ignored: true) but emit no event or webhook and are left out of message and conversation listings unless include_ignored=true. Sends to them work. 200 when already ignored. At most 10,000 per list.',
      scope: 'messages:send',
      status: 201,
      errors: ['conflict'],
      input: scopedInput(kind, { participant: PhoneInput }, { examples: [{ participant: '+14155550111' }] }),
      prepare: normalizedPhoneOf('participant'),
      output: Type.Object({ created: Type.Boolean(), entry: IgnoredParticipant }),
      run: async (ctx, input) => ignore.add(await scopeOf(ctx, input), input.participant),
    }),
    remove: podOperation({
      name: IGNORE_NAMES[kind].remove,
      summary: `Stop ignoring a participant ${where}`,
      description: 'Also 204 when the participant was not ignored. Texts stored while ignored keep ignored: true.',
      scope: 'messages:send',
      status: 204,
      input: scopedInput(kind, Participant),
      output: Type.Null(),
      run: async (ctx, input) => ignore.remove(await scopeOf(ctx, input), input.participant).then(() => null),
    }),
  };
}
