// The operator's billing routes (admin surface, contract §7): the operator operations of
// ./admin-operations.ts bound to REST.
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { BillingAdminOperations } from './admin-operations.ts';
import { AdminOrganization, AdminOrganizationList } from './schemas.ts';

const TAGS = ['Admin'];

export function registerBillingAdminRoutes(app: App, rest: RestBinder, ops: BillingAdminOperations): void {
  const organization = { tags: TAGS };
  rest.bind(app, ops.listOrganizations, {
    method: 'GET',
    url: '/v1/admin/organizations',
    tags: TAGS,
    response: Described(AdminOrganizationList, 'A page of organizations, newest first.'),
  });
  rest.bind(app, ops.getOrganization, {
    method: 'GET',
    url: '/v1/admin/organizations/:id',
    ...organization,
    response: Described(AdminOrganization, 'The organization.'),
  });
  rest.bind(app, ops.suspendOrganization, {
    method: 'POST',
    url: '/v1/admin/organizations/:id/suspend',
    ...organization,
    response: Described(AdminOrganization, 'The suspended organization.'),
  });
  rest.bind(app, ops.reinstateOrganization, {
    method: 'POST',
    url: '/v1/admin/organizations/:id/reinstate',
    ...organization,
    response: Described(AdminOrganization, 'The reinstated organization.'),
  });
  rest.bind(app, ops.creditOrganization, {
    method: 'POST',
    url: '/v1/admin/organizations/:id/credits',
    ...organization,
    response: Described(AdminOrganization, 'The organization with its new balance.'),
  });
  rest.bind(app, ops.grantOrganization, {
    method: 'POST',
    url: '/v1/admin/organizations/:id/grant',
    ...organization,
    response: Described(AdminOrganization, 'The organization, active at the tier.'),
  });
}
