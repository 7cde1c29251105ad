// Ignore lists' operations under a cell or a pod (contract §5): one set per kind, the same rules.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { normalizedPhoneOf, PhoneInput } from '../messages/schemas.ts';
import type { IgnoreService } from './ignore-service.ts';
import { idOf, podOperation, scopedInput } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { IgnoredList, IgnoredParticipant } from './views.ts';

const Participant = {
  participant: Type.String({ minLength: 1, maxLength: 64, description: 'The number, E.164 (URL-encode the +: %2B).' }),
};

/** Each operation's name (its operationId and MCP tool name), written out so a search finds it. */
const NAMES = {
  cell: {
    list: 'list_cell_ignored',
    add: 'ignore_cell_participant',
    remove: 'unignore_cell_participant',
  },
  pod: {
    list: 'list_pod_ignored',
    add: 'ignore_pod_participant',
    remove: 'unignore_pod_participant',
  },
} as const satisfies Record<ScopeKind, Record<string, string>>;

export function ignoreOperations(kind: ScopeKind, deps: { ignore: IgnoreService; scopes: Scopes }) {
  const { ignore, scopes } = deps;
  const where = kind === 'cell' ? 'on this cell' : 'on every cell of this pod';
  const scopeOf = (organizationId: string, input: { cell_id?: string; pod_id?: string }) =>
    scopes.resolve(organizationId, kind, idOf(kind, input));
  return {
    list: podOperation({
      name: NAMES[kind].list,
      summary: `List the participants ignored ${where}`,
      description: 'Newest first.',
      scope: 'messages:read',
      input: scopedInput(kind, PaginationQuery),
      output: IgnoredList,
      run: async (ctx, { cell_id, pod_id, ...query }) =>
        ignore.list(await scopeOf(ctx.organizationId, { cell_id, pod_id }), query),
    }),
    add: podOperation({
      name: NAMES[kind].add,
      summary: `Ignore a participant ${where}`,
      description:
        'Their inbound texts are still stored (ignored: true) but emit no event or webhook and are left out of message and conversation listings unless include_ignored=true. Sends to them work. 200 when already ignored. At most 10,000 per list.',
      scope: 'messages:send',
      status: 201,
      errors: ['conflict'],
      input: scopedInput(kind, { participant: PhoneInput }, { examples: [{ participant: '+14155550111' }] }),
      prepare: normalizedPhoneOf('participant'),
      output: Type.Object({ created: Type.Boolean(), entry: IgnoredParticipant }),
      run: async (ctx, input) => ignore.add(await scopeOf(ctx.organizationId, input), input.participant),
    }),
    remove: podOperation({
      name: NAMES[kind].remove,
      summary: `Stop ignoring a participant ${where}`,
      description: 'Also 204 when the participant was not ignored. Texts stored while ignored keep ignored: true.',
      scope: 'messages:send',
      status: 204,
      input: scopedInput(kind, Participant),
      output: Type.Null(),
      run: async (ctx, input) => {
        await ignore.remove(await scopeOf(ctx.organizationId, input), input.participant);
        return null;
      },
    }),
  };
}

export type IgnoreOperations = ReturnType<typeof ignoreOperations>;
