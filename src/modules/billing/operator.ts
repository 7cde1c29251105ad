// The operator's billing actions (admin surface, contract §7): organizations with their billing,
// manual suspension and reinstatement (lifecycle.ts decides), ledger credits and granted periods;
// each recorded with the admin token's id in the transaction that makes it.
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../lib/errors.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { AccountDeps } from './accounts.ts';
import { grantedPeriodEnd, reinstatement, suspension, type Decision, type Standing } from './lifecycle.ts';
import { dollars, MAX_OPERATOR_CREDIT_MICROS, parseUsd, usdString } from './money.ts';
import { tierOf } from './pricing.ts';
import type { BillingService } from './service.ts';
import type { BillingAccount, BillingOperatorActionsTable } from './tables.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import type { OrganizationsTable } from '../organizations/tables.ts';

/** The organization by id (OrganizationsService.find): the organizations module owns the rows. */
export interface OrganizationFinder {
  find(id: string): Promise<OrganizationsTable | undefined>;
}

type Action = {
  action: BillingOperatorActionsTable['action'];
  reason: string;
  detail?: Record<string, unknown>;
  adminTokenId: string;
};

const REFUSALS: Record<string, string> = {
  already_suspended: 'The organization is already suspended.',
  not_owing: 'Only a suspended or past-due organization can be reinstated.',
  unpaid: 'The period is over and unpaid: credit or grant a period to reinstate.',
};

export class BillingOperator {
  private readonly deps: AccountDeps & {
    billing: BillingService;
    audit: RecordOperatorAction;
    organizations: OrganizationFinder;
  };

  constructor(deps: BillingOperator['deps']) {
    this.deps = deps;
  }

  async listOrganizations(filter: { state?: string; email?: string }, query: PageQuery) {
    const page = await pageById(query, (before, count) => this.deps.repo.listOrganizations(filter, before, count));
    return {
      organizations: page.items.map((row) => ({
        id: row.id,
        name: row.name,
        email: row.email,
        status: row.status,
        billing_state: this.deps.config.billing ? (row.state ?? 'inactive') : 'exempt',
        tier: row.tier ?? null,
        current_period_end: row.current_period_end ?? null,
        created_at: row.created_at,
        verified_at: row.verified_at,
      })),
      next_cursor: page.next_cursor,
    };
  }

  async organization(id: string) {
    const row = orNotFound(await this.deps.organizations.find(id), 'organization');
    const { name, email, status, created_at, verified_at } = row;
    return { id, name, email, status, created_at, verified_at, billing: await this.deps.billing.status(id) };
  }

  suspend(organizationId: string, reason: string, adminTokenId: string) {
    return this.change(organizationId, { action: 'suspend', reason, adminTokenId }, async (_tx, account) =>
      decided(suspension(account)),
    );
  }

  reinstate(organizationId: string, reason: string, adminTokenId: string) {
    return this.change(organizationId, { action: 'reinstate', reason, adminTokenId }, async (_tx, account, now) =>
      decided(reinstatement(account, now)),
    );
  }

  credit(organizationId: string, amountUsd: string, reason: string, adminTokenId: string) {
    const amount = parseUsd(amountUsd);
    if (amount === null || amount === 0)
      throw invalidField(
        'amount_usd',
        'invalid_format',
        'amount_usd must be a positive decimal amount in dollars with at most 2 decimals, e.g. "25.00".',
      );
    if (amount > MAX_OPERATOR_CREDIT_MICROS)
      throw invalidField(
        'amount_usd',
        'too_large',
        `One operator credit is at most ${dollars(MAX_OPERATOR_CREDIT_MICROS)}.`,
      );
    return this.change(
      organizationId,
      { action: 'credit', reason, detail: { amount_usd: usdString(amount) }, adminTokenId },
      async (tx, _account, now) => {
        await this.deps.accounts.assertBalanceRoom(organizationId, amount, tx);
        await this.deps.repo.appendLedger(tx, {
          organization_id: organizationId,
          kind: 'operator_credit',
          amount_micros: amount,
          reference: null,
          description: reason,
          created_at: now.toISOString(),
        });
        return null;
      },
    );
  }

  grant(organizationId: string, tierName: string, months: number, reason: string, adminTokenId: string) {
    const tier = tierOf(this.deps.config.prices, tierName);
    return this.change(
      organizationId,
      { action: 'grant', reason, detail: { tier: tier.name, months }, adminTokenId },
      async (tx, account, now) => {
        await this.deps.repo.appendLedger(tx, {
          organization_id: organizationId,
          kind: 'operator_grant',
          amount_micros: 0,
          reference: null,
          description: `${tier.name} for ${months} month(s) granted by the operator: ${reason}`,
          created_at: now.toISOString(),
        });
        return { state: 'active', tier: tier.name, current_period_end: grantedPeriodEnd(account, months, now) };
      },
    );
  }

  /** One action: the account locked, `change` applied and recorded, the organization answered. */
  private async change(
    organizationId: string,
    action: Action,
    change: (tx: Executor, account: BillingAccount, now: Date) => Promise<Partial<Standing> | null>,
  ) {
    if (!(await this.deps.organizations.find(organizationId))) throw notFound('organization');
    await transact(this.deps.repo.db, async (tx) => {
      const now = this.deps.clock.now();
      const account = await this.deps.repo.lockAccount(tx, organizationId, now.toISOString());
      const next = await change(tx, account, now);
      await this.deps.repo.recordAction(tx, {
        organization_id: organizationId,
        action: action.action,
        reason: action.reason,
        detail: action.detail ? JSON.stringify(action.detail) : null,
        admin_token_id: action.adminTokenId,
        created_at: now.toISOString(),
      });
      await this.deps.audit(tx, {
        actor: { tokenId: action.adminTokenId },
        action: `organization.${action.action}`,
        targetType: 'organization',
        targetId: organizationId,
        reason: action.reason,
        detail: action.detail,
      });
      if (next) await this.deps.accounts.setAccount(tx, organizationId, account, next, now);
    });
    return this.organization(organizationId);
  }
}

/** A lifecycle decision's next values, or its refusal as 409 conflict. */
function decided<Next>(decision: Decision<Next>): Next {
  if ('refused' in decision) throw new ApiError('conflict', REFUSALS[decision.refused] ?? decision.refused);
  return decision.next;
}
