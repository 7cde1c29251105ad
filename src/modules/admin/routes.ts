// Administrative routes of the foundation: the dev mail outbox and the operator audit log, the
// operator operations of ./operations.ts bound to REST.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { AdminOperations } from './operations.ts';

export function registerAdminRoutes(app: App, rest: RestBinder, ops: AdminOperations): void {
  const admin = restRoutes(app, rest, ['Admin']);
  admin(ops.listOperatorAudit, 'GET', '/v1/admin/audit', 'A page of operator actions, newest first.');
  admin(ops.listOutboxMail, 'GET', '/v1/admin/outbox', 'A page of kept mail, newest first.');
}
