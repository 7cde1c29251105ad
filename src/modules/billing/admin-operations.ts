// The operator's billing operations (admin surface, contract §7; operator.ts does them), bound to
// REST in ./admin-routes.ts; the operator console calls them too.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body } from '../../http/schemas.ts';
import { defineOperatorOperation } from '../../operations/operation.ts';
import { BILLING_STATES } from './lifecycle.ts';
import { AdminOrganization, AdminOrganizationList } from './schemas.ts';
import type { BillingOperator } from './operator.ts';

const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'Why; kept with the action and the admin token id.',
});

const OrgId = Type.String({ minLength: 1, maxLength: 64, description: 'org_... id' });
const ListQuery = {
  ...PaginationQuery,
  state: Type.Optional(Type.Enum([...BILLING_STATES])),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
};
const CreditFields = {
  amount_usd: Type.String({
    minLength: 1,
    maxLength: 16,
    description: 'Decimal dollars, at most 2 decimals, e.g. "25.00".',
  }),
  reason: Reason,
};
const GrantFields = {
  tier: Type.String({ minLength: 1, maxLength: 32 }),
  months: Type.Integer({ minimum: 1, maximum: 120 }),
  reason: Reason,
};

/** The operator's billing operations (src/operations); the operator service records each action. */
export function billingAdminOperations(operator: BillingOperator) {
  const reasoned = Body({ id: OrgId, reason: Reason });
  return {
    listOrganizations: defineOperatorOperation({
      name: 'admin_list_organizations',
      summary: 'List organizations with their billing state',
      description: '',
      input: Type.Object(ListQuery),
      output: AdminOrganizationList,
      run: (_ctx, input) => operator.listOrganizations({ state: input.state, email: input.email }, input),
    }),
    getOrganization: defineOperatorOperation({
      name: 'admin_get_organization',
      summary: 'An organization with its billing status and prepaid balance',
      description: '',
      input: Type.Object({ id: OrgId }),
      output: AdminOrganization,
      run: (_ctx, input) => operator.organization(input.id),
    }),
    suspendOrganization: defineOperatorOperation({
      name: 'admin_suspend_organization',
      summary: 'Suspend an organization (billing): sends and cell creates are 402 until reinstated',
      description: '',
      errors: ['conflict'],
      input: reasoned,
      output: AdminOrganization,
      run: (ctx, input) => operator.suspend(input.id, input.reason, ctx.principal.tokenId),
    }),
    reinstateOrganization: defineOperatorOperation({
      name: 'admin_reinstate_organization',
      summary: 'Reinstate a suspended or past-due organization',
      description:
        'Back to active when its period is still paid; a suspended organization whose period is over becomes past_due; one without a tier becomes inactive.',
      errors: ['conflict'],
      input: reasoned,
      output: AdminOrganization,
      run: (ctx, input) => operator.reinstate(input.id, input.reason, ctx.principal.tokenId),
    }),
    creditOrganization: defineOperatorOperation({
      name: 'admin_credit_organization',
      summary: 'Credit the prepaid balance (a ledger credit)',
      description: '',
      input: Body({ id: OrgId, ...CreditFields }),
      output: AdminOrganization,
      run: (ctx, input) => operator.credit(input.id, input.amount_usd, input.reason, ctx.principal.tokenId),
    }),
    grantOrganization: defineOperatorOperation({
      name: 'admin_grant_organization',
      summary: 'Grant paid periods: active at a tier for a number of months, at zero price',
      description:
        'Extends the current paid period when the organization is active, else starts now. Recorded in the ledger at zero price.',
      input: Body({ id: OrgId, ...GrantFields }),
      output: AdminOrganization,
      run: (ctx, input) => operator.grant(input.id, input.tier, input.months, input.reason, ctx.principal.tokenId),
    }),
  };
}

export type BillingAdminOperations = ReturnType<typeof billingAdminOperations>;
