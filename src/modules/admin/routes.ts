// Administrative routes of the foundation: the dev mail outbox and the operator audit log, the
// operator operations of ./operations.ts bound to REST.
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { type AdminOperations, AuditList, OutboxMailList } from './operations.ts';

export function registerAdminRoutes(app: App, rest: RestBinder, ops: AdminOperations): void {
  rest.bind(app, ops.listOperatorAudit, {
    method: 'GET',
    url: '/v1/admin/audit',
    tags: ['Admin'],
    response: Described(AuditList, 'A page of operator actions, newest first.'),
  });

  rest.bind(app, ops.listOutboxMail, {
    method: 'GET',
    url: '/v1/admin/outbox',
    tags: ['Admin'],
    response: Described(OutboxMailList, 'A page of kept mail, newest first.'),
  });
}
