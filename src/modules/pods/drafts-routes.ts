// Drafts under /v1/cells/{cell_id}/drafts and /v1/pods/{pod_id}/drafts (contract §5), bound from
// their operations (./drafts-operations.ts).
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { normalizePhoneField } from '../messages/schemas.ts';
import { PACE_DOC, setPaceHeaders } from '../messages/pace.ts';
import { Message, type MessageView } from '../messages/views.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { DraftOperations } from './drafts-operations.ts';
import type { PodPaces } from './module.ts';
import type { PodOperations } from './operations.ts';
import { scopePrefix } from './schemas.ts';
import type { ScopeKind } from './scope.ts';
import { Draft, DraftList, type DraftView } from './views.ts';

const TAGS = ['Pods'];

export function registerDraftRoutes(app: App, rest: RestBinder, ops: PodOperations, paces: PodPaces): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, rest, ops.drafts[kind], paces);
}

function registerScoped(app: App, kind: ScopeKind, rest: RestBinder, ops: DraftOperations, paces: PodPaces): void {
  const base = `${scopePrefix(kind)}/drafts`;

  rest.bind(app, ops.create, {
    method: 'POST',
    url: base,
    tags: TAGS,
    preValidation: normalizePhoneField('to'),
    response: Described(Draft, 'The created draft.'),
    responses: { 200: Described(Draft, 'The draft created earlier with this client_id and the same body.') },
    answer: ({ created, draft }: { created: boolean; draft: DraftView }) => ({
      body: draft,
      status: created ? 201 : 200,
    }),
  });

  rest.bind(app, ops.list, {
    method: 'GET',
    url: base,
    tags: TAGS,
    response: Described(DraftList, 'A page of drafts.'),
  });

  rest.bind(app, ops.get, {
    method: 'GET',
    url: `${base}/:draft_id`,
    tags: TAGS,
    response: Described(Draft, 'The draft.'),
  });

  rest.bind(app, ops.update, {
    method: 'PATCH',
    url: `${base}/:draft_id`,
    tags: TAGS,
    preValidation: normalizePhoneField('to'),
    response: Described(Draft, 'The edited draft.'),
  });

  rest.bind(app, ops.discard, {
    method: 'DELETE',
    url: `${base}/:draft_id`,
    tags: TAGS,
    response: Described(Draft, 'The discarded draft.'),
  });

  rest.bind(app, ops.send, {
    method: 'POST',
    url: `${base}/:draft_id/send`,
    tags: TAGS,
    // The body is optional: none is the same as {}.
    preValidation: async (request) => {
      request.body ??= {};
    },
    description: ops.send.description + PACE_DOC,
    response: Described(Message, 'The queued (or scheduled) message.'),
    // The pace of the cell it goes out from (a pod's: the one the rotation picked).
    after: async (_request, reply, message: MessageView) => setPaceHeaders(reply, paces.ofSend(message)),
  });
}
