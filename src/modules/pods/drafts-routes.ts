// Drafts under /v1/cells/{cell_id}/drafts and /v1/pods/{pod_id}/drafts (contract §5).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { MediaUrls, MessageBody, normalizePhoneField, PhoneInput, ScheduleFields } from '../messages/schemas.ts';
import { Message } from '../messages/views.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { DraftsService } from './drafts-service.ts';
import type { PodOperations } from './operations.ts';
import { ClientId, idOf, scopedParams, scopePrefix, scopeWord } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { Draft, DraftList } from './views.ts';

const TAGS = ['Pods'];
const DraftId = IdParam('draft_id', 'drf').properties;

export function registerDraftRoutes(
  app: App,
  drafts: DraftsService,
  scopes: Scopes,
  rest: RestBinder,
  ops: PodOperations,
): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, drafts, scopes, rest, ops);
}

function registerScoped(
  app: App,
  kind: ScopeKind,
  drafts: DraftsService,
  scopes: Scopes,
  rest: RestBinder,
  ops: PodOperations,
): void {
  const base = `${scopePrefix(kind)}/drafts`;
  const word = scopeWord(kind);
  const of = `of a ${kind}`;
  const Params = scopedParams(kind);
  const DraftParams = scopedParams(kind, DraftId);
  const scopeOf = (request: FastifyRequest) =>
    scopes.resolve(agentOf(request).organizationId, kind, idOf(kind, request.params as Record<string, string>));

  app.post(
    base,
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['client_id_conflict'] },
      preValidation: normalizePhoneField('to'),
      schema: {
        operationId: `create${word}Draft`,
        tags: TAGS,
        summary: `Create a draft ${of}`,
        description:
          'Repeating the same body with the same client_id returns the draft (as it is now) with 200; another body is 409 client_id_conflict.',
        params: Params,
        body: Body(
          { client_id: ClientId, to: PhoneInput, body: MessageBody, media_urls: Type.Optional(MediaUrls) },
          { examples: [{ client_id: 'draft-42', to: '+14155550199', body: 'Your table for two is ready.' }] },
        ),
        response: {
          200: Described(Draft, 'The draft created earlier with this client_id and the same body.'),
          201: Described(Draft, 'The created draft.'),
        },
      },
    },
    async (request, reply) => {
      const { created, draft } = await drafts.create(await scopeOf(request), request.body);
      return reply.code(created ? 201 : 200).send(draft);
    },
  );

  app.get(
    base,
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: `list${word}Drafts`,
        tags: TAGS,
        summary: `List drafts ${of}, newest first`,
        params: Params,
        querystring: Type.Object({
          ...PaginationQuery,
          status: Type.Optional(Type.Enum(['draft', 'sent', 'discarded'])),
        }),
        response: { 200: Described(DraftList, 'A page of drafts.') },
      },
    },
    async (request) => drafts.list(await scopeOf(request), request.query),
  );

  app.get(
    `${base}/:draft_id`,
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: `get${word}Draft`,
        tags: TAGS,
        summary: `Read a draft ${of}`,
        params: DraftParams,
        response: { 200: Described(Draft, 'The draft.') },
      },
    },
    async (request) => drafts.get(await scopeOf(request), request.params.draft_id),
  );

  app.patch(
    `${base}/:draft_id`,
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      preValidation: normalizePhoneField('to'),
      schema: {
        operationId: `update${word}Draft`,
        tags: TAGS,
        summary: `Edit a draft ${of}`,
        description: 'Only while it is a draft; a sent or discarded draft is 409 conflict.',
        params: DraftParams,
        body: Body({
          to: Type.Optional(PhoneInput),
          body: Type.Optional(MessageBody),
          media_urls: Type.Optional(MediaUrls),
        }),
        response: { 200: Described(Draft, 'The edited draft.') },
      },
    },
    async (request) => drafts.update(await scopeOf(request), request.params.draft_id, request.body),
  );

  app.delete(
    `${base}/:draft_id`,
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      schema: {
        operationId: `discard${word}Draft`,
        tags: TAGS,
        summary: `Discard a draft ${of}`,
        description:
          'The draft stays readable with status discarded (discarding it again answers the same); a sent draft is 409 conflict.',
        params: DraftParams,
        response: { 200: Described(Draft, 'The discarded draft.') },
      },
    },
    async (request) => drafts.discard(await scopeOf(request), request.params.draft_id),
  );

  rest.bind(app, kind === 'cell' ? ops.sendCellDraft : ops.sendPodDraft, {
    method: 'POST',
    url: `${base}/:draft_id/send`,
    tags: TAGS,
    params: DraftParams,
    // The body is optional: none is the same as {}.
    preValidation: async (request) => {
      request.body ??= {};
    },
    body: Body(ScheduleFields, {
      description: 'Optional: send_at and send_now; a send without a body goes out now.',
      examples: [{}, { send_at: '2026-11-22T09:00:00-05:00' }, { send_now: true }],
    }),
    response: Described(Message, 'The queued (or scheduled) message.'),
  });
}
