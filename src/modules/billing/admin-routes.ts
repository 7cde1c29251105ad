// The operator's billing routes (admin surface, contract §7): organizations with their billing,
// manual suspension and reinstatement, credits and granted periods; each recorded with the admin
// token's id.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { BILLING_STATES } from './lifecycle.ts';
import { AdminOrganization, AdminOrganizationList } from './schemas.ts';
import type { BillingOperator } from './operator.ts';

const TAGS = ['Admin'];
const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Why; kept with the action and the admin token id.',
});
const OrgParams = IdParam('id', 'org');

function tokenId(request: FastifyRequest): string {
  if (!request.admin) throw new Error('tokenId() on a route without admin auth');
  return request.admin.tokenId;
}

export function registerBillingAdminRoutes(app: App, operator: BillingOperator): void {
  app.get(
    '/v1/admin/organizations',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'adminListOrganizations',
        tags: TAGS,
        summary: 'List organizations with their billing state',
        querystring: Type.Object({
          ...PaginationQuery,
          state: Type.Optional(Type.Enum([...BILLING_STATES])),
          email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
        }),
        response: { 200: Described(AdminOrganizationList, 'A page of organizations, newest first.') },
      },
    },
    async (request) =>
      operator.listOrganizations({ state: request.query.state, email: request.query.email }, request.query),
  );

  app.get(
    '/v1/admin/organizations/:id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'adminGetOrganization',
        tags: TAGS,
        summary: 'An organization with its billing status and prepaid balance',
        params: OrgParams,
        response: { 200: Described(AdminOrganization, 'The organization.') },
      },
    },
    async (request) => operator.organization(request.params.id),
  );

  app.post(
    '/v1/admin/organizations/:id/suspend',
    {
      config: { auth: 'admin', errors: ['conflict'] },
      schema: {
        operationId: 'adminSuspendOrganization',
        tags: TAGS,
        summary: 'Suspend an organization (billing): sends and cell creates are 402 until reinstated',
        params: OrgParams,
        body: Body({ reason: Reason }),
        response: { 200: Described(AdminOrganization, 'The suspended organization.') },
      },
    },
    async (request) => operator.suspend(request.params.id, request.body.reason, tokenId(request)),
  );

  app.post(
    '/v1/admin/organizations/:id/reinstate',
    {
      config: { auth: 'admin', errors: ['conflict'] },
      schema: {
        operationId: 'adminReinstateOrganization',
        tags: TAGS,
        summary: 'Reinstate a suspended or past-due organization',
        description:
          'Back to active when its period is still paid; a suspended organization whose period is over becomes past_due; one without a tier becomes inactive.',
        params: OrgParams,
        body: Body({ reason: Reason }),
        response: { 200: Described(AdminOrganization, 'The reinstated organization.') },
      },
    },
    async (request) => operator.reinstate(request.params.id, request.body.reason, tokenId(request)),
  );

  app.post(
    '/v1/admin/organizations/:id/credits',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'adminCreditOrganization',
        tags: TAGS,
        summary: 'Credit the prepaid balance (a ledger credit)',
        params: OrgParams,
        body: Body({
          amount_usd: Type.String({
            minLength: 1,
            maxLength: 16,
            description: 'Decimal dollars, at most 2 decimals, e.g. "25.00".',
          }),
          reason: Reason,
        }),
        response: { 200: Described(AdminOrganization, 'The organization with its new balance.') },
      },
    },
    async (request) =>
      operator.credit(request.params.id, request.body.amount_usd, request.body.reason, tokenId(request)),
  );

  app.post(
    '/v1/admin/organizations/:id/grant',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'adminGrantOrganization',
        tags: TAGS,
        summary: 'Grant paid periods: active at a tier for a number of months, at zero price',
        description:
          'Extends the current paid period when the organization is active, else starts now. Recorded in the ledger at zero price.',
        params: OrgParams,
        body: Body({
          tier: Type.String({ minLength: 1, maxLength: 32 }),
          months: Type.Integer({ minimum: 1, maximum: 120 }),
          reason: Reason,
        }),
        response: { 200: Described(AdminOrganization, 'The organization, active at the tier.') },
      },
    },
    async (request) =>
      operator.grant(request.params.id, request.body.tier, request.body.months, request.body.reason, tokenId(request)),
  );
}
