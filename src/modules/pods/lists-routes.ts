// Contact lists under /v1/cells/{cell_id}/lists and /v1/pods/{pod_id}/lists (contract §5).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { ListsService } from './lists-service.ts';
import { idOf, Name, Numbers, scopedParams, scopePrefix, scopeWord } from './schemas.ts';
import type { Scopes, ScopeKind } from './scope.ts';
import { ContactList, ContactListPage } from './views.ts';

const TAGS = ['Pods'];
const ListId = IdParam('list_id', 'lst').properties;

export function registerListRoutes(app: App, lists: ListsService, scopes: Scopes): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, lists, scopes);
}

function registerScoped(app: App, kind: ScopeKind, lists: ListsService, scopes: Scopes): void {
  const base = `${scopePrefix(kind)}/lists`;
  const word = scopeWord(kind);
  const of = `of a ${kind}`;
  const Params = scopedParams(kind);
  const ListParams = scopedParams(kind, ListId);
  const scopeOf = (request: FastifyRequest) =>
    scopes.resolve(agentOf(request).organizationId, kind, idOf(kind, request.params as Record<string, string>));

  app.post(
    base,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `create${word}List`,
        tags: TAGS,
        summary: `Create a contact list ${of}`,
        params: Params,
        body: Body(
          { name: Name, numbers: Type.Optional(Numbers) },
          { examples: [{ name: 'Regulars', numbers: ['+14155550198', '+14155550199'] }] },
        ),
        response: { 201: Described(ContactList, 'The created list with its numbers.') },
      },
    },
    async (request, reply) => reply.code(201).send(await lists.create(await scopeOf(request), request.body)),
  );

  app.get(
    base,
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: `list${word}Lists`,
        tags: TAGS,
        summary: `List the contact lists ${of}, newest first`,
        description: 'Without their numbers; read a list for them.',
        params: Params,
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(ContactListPage, 'A page of lists.') },
      },
    },
    async (request) => lists.list(await scopeOf(request), request.query),
  );

  app.get(
    `${base}/:list_id`,
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: `get${word}List`,
        tags: TAGS,
        summary: `Read a contact list ${of}`,
        params: ListParams,
        response: { 200: Described(ContactList, 'The list with its numbers.') },
      },
    },
    async (request) => lists.get(await scopeOf(request), request.params.list_id),
  );

  app.patch(
    `${base}/:list_id`,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `rename${word}List`,
        tags: TAGS,
        summary: `Rename a contact list ${of}`,
        params: ListParams,
        body: Body({ name: Name }),
        response: { 200: Described(ContactList, 'The renamed list.') },
      },
    },
    async (request) => lists.rename(await scopeOf(request), request.params.list_id, request.body.name),
  );

  app.delete(
    `${base}/:list_id`,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `delete${word}List`,
        tags: TAGS,
        summary: `Delete a contact list ${of}`,
        params: ListParams,
        response: { 204: NoContent('Deleted.') },
      },
    },
    async (request, reply) => {
      await lists.remove(await scopeOf(request), request.params.list_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${base}/:list_id/numbers`,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `add${word}ListNumbers`,
        tags: TAGS,
        summary: `Add numbers to a contact list ${of}`,
        description: 'Numbers already on the list are ignored. The list holds at most 10,000 numbers (more is 400).',
        params: ListParams,
        body: Body({ numbers: Numbers }),
        response: { 200: Described(ContactList, 'The list with its numbers.') },
      },
    },
    async (request) => lists.addNumbers(await scopeOf(request), request.params.list_id, request.body.numbers),
  );

  app.post(
    `${base}/:list_id/numbers/remove`,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `remove${word}ListNumbers`,
        tags: TAGS,
        summary: `Remove numbers from a contact list ${of}`,
        description: 'Numbers not on the list are ignored.',
        params: ListParams,
        body: Body({ numbers: Numbers }),
        response: { 200: Described(ContactList, 'The list with its numbers.') },
      },
    },
    async (request) => lists.removeNumbers(await scopeOf(request), request.params.list_id, request.body.numbers),
  );
}
