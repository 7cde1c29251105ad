// Contact lists' operations under a cell or a pod (contract §5): one set per kind, the same rules.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import type { ListsService } from './lists-service.ts';
import { id, idOf, Name, Numbers, podOperation, scopedInput } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { ContactList, ContactListPage } from './views.ts';

const ListId = { list_id: id('lst') };

/** Each operation's name (its operationId and MCP tool name), written out so a search finds it. */
const NAMES = {
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

export function listOperations(kind: ScopeKind, deps: { lists: ListsService; scopes: Scopes }) {
  const { lists, scopes } = deps;
  const of = `of a ${kind}`;
  const scopeOf = (organizationId: string, input: { cell_id?: string; pod_id?: string }) =>
    scopes.resolve(organizationId, kind, idOf(kind, input));
  const write = { scope: 'messages:send', output: ContactList } as const;
  return {
    create: podOperation({
      ...write,
      name: NAMES[kind].create,
      errors: ['conflict'],
      summary: `Create a contact list ${of}`,
      status: 201,
      input: scopedInput(
        kind,
        { name: Name, numbers: Type.Optional(Numbers) },
        { examples: [{ name: 'Regulars', numbers: ['+14155550198', '+14155550199'] }] },
      ),
      run: async (ctx, { cell_id, pod_id, ...input }) =>
        lists.create(await scopeOf(ctx.organizationId, { cell_id, pod_id }), input),
    }),
    list: podOperation({
      name: NAMES[kind].list,
      summary: `List the contact lists ${of}, newest first`,
      description: 'Without their numbers; read a list for them.',
      scope: 'messages:read',
      input: scopedInput(kind, PaginationQuery),
      output: ContactListPage,
      run: async (ctx, { cell_id, pod_id, ...query }) =>
        lists.list(await scopeOf(ctx.organizationId, { cell_id, pod_id }), query),
    }),
    get: podOperation({
      name: NAMES[kind].get,
      summary: `Read a contact list ${of}`,
      scope: 'messages:read',
      input: scopedInput(kind, ListId),
      output: ContactList,
      run: async (ctx, input) => lists.get(await scopeOf(ctx.organizationId, input), input.list_id),
    }),
    rename: podOperation({
      ...write,
      name: NAMES[kind].rename,
      summary: `Rename a contact list ${of}`,
      input: scopedInput(kind, { ...ListId, name: Name }),
      run: async (ctx, input) => lists.rename(await scopeOf(ctx.organizationId, input), input.list_id, input.name),
    }),
    remove: podOperation({
      ...write,
      name: NAMES[kind].remove,
      summary: `Delete a contact list ${of}`,
      status: 204,
      input: scopedInput(kind, ListId),
      output: Type.Null(),
      run: async (ctx, input) => {
        await lists.remove(await scopeOf(ctx.organizationId, input), input.list_id);
        return null;
      },
    }),
    addNumbers: podOperation({
      ...write,
      name: NAMES[kind].addNumbers,
      errors: ['conflict'],
      summary: `Add numbers to a contact list ${of}`,
      description: 'Numbers already on the list are ignored. The list holds at most 10,000 numbers (more is 400).',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) =>
        lists.addNumbers(await scopeOf(ctx.organizationId, input), input.list_id, input.numbers),
    }),
    removeNumbers: podOperation({
      ...write,
      name: NAMES[kind].removeNumbers,
      summary: `Remove numbers from a contact list ${of}`,
      description: 'Numbers not on the list are ignored.',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) =>
        lists.removeNumbers(await scopeOf(ctx.organizationId, input), input.list_id, input.numbers),
    }),
  };
}

export type ListOperations = ReturnType<typeof listOperations>;
