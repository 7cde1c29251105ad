// Contact lists under /v1/cells/{cell_id}/lists and /v1/pods/{pod_id}/lists (contract §5), bound
// from their operations (./lists-operations.ts).
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { ListOperations } from './lists-operations.ts';
import type { PodOperations } from './operations.ts';
import { scopePrefix } from './schemas.ts';
import type { ScopeKind } from './scope.ts';
import { ContactList, ContactListPage } from './views.ts';

const TAGS = ['Pods'];

export function registerListRoutes(app: App, rest: RestBinder, ops: PodOperations): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, rest, ops.lists[kind]);
}

function registerScoped(app: App, kind: ScopeKind, rest: RestBinder, ops: ListOperations): void {
  const base = `${scopePrefix(kind)}/lists`;
  const WithNumbers = Described(ContactList, 'The list with its numbers.');

  rest.bind(app, ops.create, {
    method: 'POST',
    url: base,
    tags: TAGS,
    response: Described(ContactList, 'The created list with its numbers.'),
  });

  rest.bind(app, ops.list, {
    method: 'GET',
    url: base,
    tags: TAGS,
    response: Described(ContactListPage, 'A page of lists.'),
  });

  rest.bind(app, ops.get, {
    method: 'GET',
    url: `${base}/:list_id`,
    tags: TAGS,
    response: WithNumbers,
  });

  rest.bind(app, ops.rename, {
    method: 'PATCH',
    url: `${base}/:list_id`,
    tags: TAGS,
    response: Described(ContactList, 'The renamed list.'),
  });

  rest.bind(app, ops.remove, {
    method: 'DELETE',
    url: `${base}/:list_id`,
    tags: TAGS,
    response: NoContent('Deleted.'),
  });

  rest.bind(app, ops.addNumbers, {
    method: 'POST',
    url: `${base}/:list_id/numbers`,
    tags: TAGS,
    response: WithNumbers,
  });

  rest.bind(app, ops.removeNumbers, {
    method: 'POST',
    url: `${base}/:list_id/numbers/remove`,
    tags: TAGS,
    response: WithNumbers,
  });
}
