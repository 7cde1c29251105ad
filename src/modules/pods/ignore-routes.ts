// Ignore lists under /v1/cells/{cell_id}/ignore and /v1/pods/{pod_id}/ignore (contract §5), bound
// from their operations (./ignore-operations.ts).
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { normalizePhoneField } from '../messages/schemas.ts';
import type { IgnoreOperations } from './ignore-operations.ts';
import type { PodOperations } from './operations.ts';
import { scopePrefix } from './schemas.ts';
import type { ScopeKind } from './scope.ts';
import { IgnoredList, IgnoredParticipant } from './views.ts';

const TAGS = ['Pods'];

export function registerIgnoreRoutes(app: App, rest: RestBinder, ops: PodOperations): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, rest, ops.ignore[kind]);
}

function registerScoped(app: App, kind: ScopeKind, rest: RestBinder, ops: IgnoreOperations): void {
  const base = `${scopePrefix(kind)}/ignore`;

  rest.bind(app, ops.list, {
    method: 'GET',
    url: base,
    tags: TAGS,
    response: Described(IgnoredList, 'A page of ignored participants.'),
  });

  rest.bind(app, ops.add, {
    method: 'POST',
    url: base,
    tags: TAGS,
    preValidation: normalizePhoneField('participant'),
    response: Described(IgnoredParticipant, 'The participant is now ignored.'),
    responses: { 200: Described(IgnoredParticipant, 'The participant was already ignored here.') },
    answer: ({ created, entry }: { created: boolean; entry: unknown }) => ({
      body: entry,
      status: created ? 201 : 200,
    }),
  });

  rest.bind(app, ops.remove, {
    method: 'DELETE',
    url: `${base}/:participant`,
    tags: TAGS,
    response: NoContent('Removed.'),
  });
}
