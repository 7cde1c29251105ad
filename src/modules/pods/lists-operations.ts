// Contact lists' operations under a cell or a pod (contract §5): one set per kind, the same rules.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { defineOperation } from '../../operations/operation.ts';
import type { ListsService } from './lists-service.ts';
import { id, idOf, Name, Numbers, scopedInput } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { ContactList, ContactListPage } from './views.ts';

const ListId = { list_id: id('lst') };

export function listOperations(kind: ScopeKind, deps: { lists: ListsService; scopes: Scopes }) {
  const { lists, scopes } = deps;
  const of = `of a ${kind}`;
  const scopeOf = (organizationId: string, input: { cell_id?: string; pod_id?: string }) =>
    scopes.resolve(organizationId, kind, idOf(kind, input));
  const write = { scope: 'messages:send', idempotency: 'none', errors: [], output: ContactList } as const;
  return {
    create: defineOperation({
      ...write,
      name: `create_${kind}_list`,
      errors: ['conflict'],
      summary: `Create a contact list ${of}`,
      description: '',
      status: 201,
      input: scopedInput(kind, { name: Name, numbers: Type.Optional(Numbers) }),
      run: async (ctx, { cell_id, pod_id, ...input }) =>
        lists.create(await scopeOf(ctx.organizationId, { cell_id, pod_id }), input),
    }),
    list: defineOperation({
      name: `list_${kind}_lists`,
      summary: `List the contact lists ${of}, newest first`,
      description: 'Without their numbers; read a list for them.',
      scope: 'messages:read',
      idempotency: 'none',
      errors: [],
      input: scopedInput(kind, PaginationQuery),
      output: ContactListPage,
      run: async (ctx, { cell_id, pod_id, ...query }) =>
        lists.list(await scopeOf(ctx.organizationId, { cell_id, pod_id }), query),
    }),
    get: defineOperation({
      name: `get_${kind}_list`,
      summary: `Read a contact list ${of}`,
      description: '',
      scope: 'messages:read',
      idempotency: 'none',
      errors: [],
      input: scopedInput(kind, ListId),
      output: ContactList,
      run: async (ctx, input) => lists.get(await scopeOf(ctx.organizationId, input), input.list_id),
    }),
    rename: defineOperation({
      ...write,
      name: `rename_${kind}_list`,
      summary: `Rename a contact list ${of}`,
      description: '',
      input: scopedInput(kind, { ...ListId, name: Name }),
      run: async (ctx, input) => lists.rename(await scopeOf(ctx.organizationId, input), input.list_id, input.name),
    }),
    remove: defineOperation({
      ...write,
      name: `delete_${kind}_list`,
      summary: `Delete a contact list ${of}`,
      description: '',
      status: 204,
      input: scopedInput(kind, ListId),
      output: Type.Null(),
      run: async (ctx, input) => {
        await lists.remove(await scopeOf(ctx.organizationId, input), input.list_id);
        return null;
      },
    }),
    addNumbers: defineOperation({
      ...write,
      name: `add_${kind}_list_numbers`,
      errors: ['conflict'],
      summary: `Add numbers to a contact list ${of}`,
      description: 'Numbers already on the list are ignored. The list holds at most 10,000 numbers (more is 400).',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) =>
        lists.addNumbers(await scopeOf(ctx.organizationId, input), input.list_id, input.numbers),
    }),
    removeNumbers: defineOperation({
      ...write,
      name: `remove_${kind}_list_numbers`,
      summary: `Remove numbers from a contact list ${of}`,
      description: 'Numbers not on the list are ignored.',
      input: scopedInput(kind, { ...ListId, numbers: Numbers }),
      run: async (ctx, input) =>
        lists.removeNumbers(await scopeOf(ctx.organizationId, input), input.list_id, input.numbers),
    }),
  };
}

export type ListOperations = ReturnType<typeof listOperations>;
