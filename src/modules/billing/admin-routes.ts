// The operator's billing routes (admin surface, contract §7): the operator operations of
// ./admin-operations.ts bound to REST.
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { BillingAdminOperations } from './admin-operations.ts';
import { restRoutes } from '../../operations/rest-routes.ts';

export function registerBillingAdminRoutes(app: App, rest: RestBinder, ops: BillingAdminOperations): void {
  const admin = restRoutes(app, rest, ['Admin']);
  const one = '/v1/admin/organizations/:id';
  admin(ops.listOrganizations, 'GET', '/v1/admin/organizations', 'A page of organizations, newest first.');
  admin(ops.getOrganization, 'GET', one, 'The organization.');
  admin(ops.suspendOrganization, 'POST', `${one}/suspend`, 'The suspended organization.');
  admin(ops.reinstateOrganization, 'POST', `${one}/reinstate`, 'The reinstated organization.');
  admin(ops.creditOrganization, 'POST', `${one}/credits`, 'The organization with its new balance.');
  admin(ops.grantOrganization, 'POST', `${one}/grant`, 'The organization, active at the tier.');
}
