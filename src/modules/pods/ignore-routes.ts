// Ignore lists under /v1/cells/{cell_id}/ignore and /v1/pods/{pod_id}/ignore (contract §5).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { normalizePhoneField, PhoneInput } from '../messages/schemas.ts';
import type { IgnoreService } from './ignore-service.ts';
import { idOf, scopedParams, scopePrefix, scopeWord } from './schemas.ts';
import type { ScopeKind, Scopes } from './scope.ts';
import { IgnoredList, IgnoredParticipant } from './views.ts';

const TAGS = ['Pods'];
const Participant = {
  participant: Type.String({ minLength: 1, maxLength: 64, description: 'The number, E.164 (URL-encode the +: %2B).' }),
};

export function registerIgnoreRoutes(app: App, ignore: IgnoreService, scopes: Scopes): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, ignore, scopes);
}

function registerScoped(app: App, kind: ScopeKind, ignore: IgnoreService, scopes: Scopes): void {
  const base = `${scopePrefix(kind)}/ignore`;
  const word = scopeWord(kind);
  const where = kind === 'cell' ? 'on this cell' : 'on every cell of this pod';
  const scopeOf = (request: FastifyRequest) =>
    scopes.resolve(agentOf(request).organizationId, kind, idOf(kind, request.params as Record<string, string>));

  app.get(
    base,
    {
      config: { auth: 'agent', scope: 'messages:read' },
      schema: {
        operationId: `list${word}Ignored`,
        tags: TAGS,
        summary: `List the participants ignored ${where}`,
        description: 'Newest first.',
        params: scopedParams(kind),
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(IgnoredList, 'A page of ignored participants.') },
      },
    },
    async (request) => ignore.list(await scopeOf(request), request.query),
  );

  app.post(
    base,
    {
      config: { auth: 'agent', scope: 'messages:send', errors: ['conflict'] },
      preValidation: normalizePhoneField('participant'),
      schema: {
        operationId: `ignore${word}Participant`,
        tags: TAGS,
        summary: `Ignore a participant ${where}`,
        description:
          'Their inbound texts are still stored (ignored: true) but emit no event or webhook and are left out of message and conversation listings unless include_ignored=true. Sends to them work. 200 when already ignored. At most 10,000 per list.',
        params: scopedParams(kind),
        body: Body({ participant: PhoneInput }, { examples: [{ participant: '+14155550111' }] }),
        response: {
          200: Described(IgnoredParticipant, 'The participant was already ignored here.'),
          201: Described(IgnoredParticipant, 'The participant is now ignored.'),
        },
      },
    },
    async (request, reply) => {
      const { created, entry } = await ignore.add(await scopeOf(request), request.body.participant);
      return reply.code(created ? 201 : 200).send(entry);
    },
  );

  app.delete(
    `${base}/:participant`,
    {
      config: { auth: 'agent', scope: 'messages:send' },
      schema: {
        operationId: `unignore${word}Participant`,
        tags: TAGS,
        summary: `Stop ignoring a participant ${where}`,
        description: 'Also 204 when the participant was not ignored. Texts stored while ignored keep ignored: true.',
        params: scopedParams(kind, Participant),
        response: { 204: NoContent('Removed.') },
      },
    },
    async (request, reply) => {
      await ignore.remove(await scopeOf(request), request.params.participant);
      return reply.code(204).send(null);
    },
  );
}
