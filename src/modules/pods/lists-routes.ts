// Contact lists under /v1/cells/{cell_id}/lists and /v1/pods/{pod_id}/lists (contract §5), bound
// from their operations (./lists-operations.ts).
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { ListOperations } from './lists-operations.ts';
import type { PodOperations } from './operations.ts';
import { Name, Numbers, scopedParams, scopePrefix } from './schemas.ts';
import type { ScopeKind } from './scope.ts';
import { ContactList, ContactListPage } from './views.ts';

const TAGS = ['Pods'];
const ListId = IdParam('list_id', 'lst').properties;

export function registerListRoutes(app: App, rest: RestBinder, ops: PodOperations): void {
  for (const kind of ['cell', 'pod'] as const) registerScoped(app, kind, rest, ops.lists[kind]);
}

function registerScoped(app: App, kind: ScopeKind, rest: RestBinder, ops: ListOperations): void {
  const base = `${scopePrefix(kind)}/lists`;
  const Params = scopedParams(kind);
  const ListParams = scopedParams(kind, ListId);
  const WithNumbers = Described(ContactList, 'The list with its numbers.');

  rest.bind(app, ops.create, {
    method: 'POST',
    url: base,
    tags: TAGS,
    params: Params,
    body: Body(
      { name: Name, numbers: Type.Optional(Numbers) },
      { examples: [{ name: 'Regulars', numbers: ['+14155550198', '+14155550199'] }] },
    ),
    response: Described(ContactList, 'The created list with its numbers.'),
  });

  rest.bind(app, ops.list, {
    method: 'GET',
    url: base,
    tags: TAGS,
    params: Params,
    querystring: Type.Object(PaginationQuery),
    response: Described(ContactListPage, 'A page of lists.'),
  });

  rest.bind(app, ops.get, {
    method: 'GET',
    url: `${base}/:list_id`,
    tags: TAGS,
    params: ListParams,
    response: WithNumbers,
  });

  rest.bind(app, ops.rename, {
    method: 'PATCH',
    url: `${base}/:list_id`,
    tags: TAGS,
    params: ListParams,
    body: Body({ name: Name }),
    response: Described(ContactList, 'The renamed list.'),
  });

  rest.bind(app, ops.remove, {
    method: 'DELETE',
    url: `${base}/:list_id`,
    tags: TAGS,
    params: ListParams,
    response: NoContent('Deleted.'),
  });

  rest.bind(app, ops.addNumbers, {
    method: 'POST',
    url: `${base}/:list_id/numbers`,
    tags: TAGS,
    params: ListParams,
    body: Body({ numbers: Numbers }),
    response: WithNumbers,
  });

  rest.bind(app, ops.removeNumbers, {
    method: 'POST',
    url: `${base}/:list_id/numbers/remove`,
    tags: TAGS,
    params: ListParams,
    body: Body({ numbers: Numbers }),
    response: WithNumbers,
  });
}
