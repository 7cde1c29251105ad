// The operator's organizations and deposits:
//   GET  /console/operator/organizations[?state=&email=&cursor=]
//   GET  /console/operator/organizations/:id                 cells, ledger, usage, the forms
//   POST /console/operator/organizations/:id/{credits,grant,suspend,reinstate}   with a reason
//   GET  /console/operator/deposits[?status=credited&cursor=]
//   POST /console/operator/deposits/:id/assign
// Each action goes through the billing operator service the admin API uses, recorded with the
// session's admin token id. A bad value is a form error on the page (400); a refusal (409) is said
// above its form; success is a redirect (Post/Redirect/Get) to the page with a notice.
import { monthOf } from '../account/chart.ts';
import type { Html } from '../../../lib/html.ts';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { BILLING_STATES } from '../../billing/lifecycle.ts';
import { noticeOf } from '../account/shared.ts';
import { FormRefusal } from '../binder.ts';
import { ADMIN_ID, badRequest, idOf, OPERATOR_PATH, type OperatorAsk } from './http.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import {
  depositsPage,
  organizationPage,
  organizationPath,
  organizationsPage,
  type FormState,
  type OrganizationForm,
} from './organization-pages.ts';
import { reasonError } from './routes.ts';

const PAGE_SIZE = 25;
const FORMS: readonly OrganizationForm[] = ['credits', 'grant', 'suspend', 'reinstate'];
const NOTICES: Record<string, string> = {
  credits: 'Credited: the balance and the ledger show it.',
  grant: 'Granted: the organization is active at the tier.',
  suspend: 'Suspended: sends and new cells are refused until reinstated.',
  reinstate: 'Reinstated.',
  assigned: 'Deposit assigned: the organization was credited.',
};
const FIELD_WORDS = { amount_usd: 'The amount', tier: 'The tier', months: 'Months', reason: 'The reason' };

const ORGANIZATIONS = `${OPERATOR_PATH}/organizations`;
const DEPOSITS = `${OPERATOR_PATH}/deposits`;

/** The form's own checks (the service checks again): a reason, and whole months. */
function checked(form: OrganizationForm, values: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  const reason = reasonError(values.reason);
  if (reason) errors.reason = reason;
  if (form === 'credits' && values.amount_usd === '') errors.amount_usd = 'Enter an amount in dollars, like 25.00.';
  if (form === 'grant') {
    const months = Number(values.months);
    if (!/^\d{1,3}$/.test(values.months) || months < 1 || months > 120)
      errors.months = 'Months must be a whole number from 1 to 120.';
    if (values.tier === '') errors.tier = 'Choose a tier.';
  }
  return errors;
}

/** An action form's fields, trimmed ("$25" is 25). */
const valuesOf = ({ body }: OperatorAsk) => ({
  reason: (body.reason ?? '').trim(),
  amount_usd: (body.amount_usd ?? '').trim().replace(/^\$/, ''),
  tier: (body.tier ?? '').trim(),
  months: (body.months ?? '').trim(),
});

export function registerOrganizationPages(scope: App, operator: OperatorConsole): void {
  const { billing, repo } = operator;
  const ops = operator.operations.billing;
  const organizations = operatorBinder(scope, operator, {
    back: { href: ORGANIZATIONS, text: 'Back to organizations' },
    missing: 'organization',
    gone: 'No organization has this id.',
    labels: FIELD_WORDS,
  });
  const deposits = operatorBinder(scope, operator, {
    back: { href: DEPOSITS, text: 'Back to deposits' },
    missing: 'deposit',
    gone: 'No deposit has this id.',
  });

  /** The organization page, with a form's state or a notice. */
  async function organizationOf(ask: OperatorAsk, extra: { state?: FormState; notice?: Html }) {
    const id = idOf(ask, 'id');
    const org = await billing.operator.organization(id);
    // This month's usage (UTC), as the organization's own billing page shows it.
    const { month, range } = monthOf(operator.clock.now());
    const [cells, ledger, usage, daily] = await Promise.all([
      repo.cellsOf(id, 100),
      repo.ledger(id, 50),
      billing.usage.summary(id, range),
      billing.usage.daily(id, range),
    ]);
    return organizationPage(ask.session, org, {
      cells,
      ledger,
      usage,
      month,
      days: daily.days,
      tiers: Object.keys(billing.billing.prices.tiers),
      ...extra,
    });
  }

  organizations.view(ORGANIZATIONS, async (ask) => {
    const { session, query } = ask;
    const back = { href: ORGANIZATIONS, text: 'See every organization' };
    const state = query.state ?? '';
    const email = (query.email ?? '').trim();
    if (state !== '' && !(BILLING_STATES as readonly string[]).includes(state))
      return badRequest(ask, back, 'Unknown state', `The billing state is one of: ${BILLING_STATES.join(', ')}.`);
    if (email.length > 254) return badRequest(ask, back);
    const page = await billing.operator.listOrganizations(
      { state: state || undefined, email: email.toLowerCase() || undefined },
      { limit: PAGE_SIZE, cursor: query.cursor || undefined },
    );
    const listed = await Promise.all(
      page.organizations.map(async (org) => {
        const status = await billing.billing.status(org.id);
        return { ...org, prepaid_balance_usd: status.prepaid_balance_usd, active_cells: status.cells.active };
      }),
    );
    return organizationsPage(session, listed, {
      states: BILLING_STATES,
      state: state || null,
      email,
      nextCursor: page.next_cursor,
    });
  });

  organizations.view(`${ORGANIZATIONS}/:id`, (ask) => organizationOf(ask, { notice: noticeOf(ask.query, NOTICES) }));

  for (const form of FORMS)
    organizations.post(`${ORGANIZATIONS}/:id/${form}`, {
      run: async (ask) => {
        const id = idOf(ask, 'id');
        const values = valuesOf(ask);
        const errors = checked(form, values);
        if (Object.keys(errors).length > 0) throw new FormRefusal(errors);
        const { reason } = values;
        if (form === 'credits') await ask.call(ops.creditOrganization, { id, amount_usd: values.amount_usd, reason });
        else if (form === 'grant')
          await ask.call(ops.grantOrganization, { id, tier: values.tier, months: Number(values.months), reason });
        else if (form === 'suspend') await ask.call(ops.suspendOrganization, { id, reason });
        else await ask.call(ops.reinstateOrganization, { id, reason });
        return `${organizationPath(id)}?notice=${form}`;
      },
      page: (ask, refusal) =>
        organizationOf(ask, {
          state: { ...refusal, values: valuesOf(ask), form },
        }),
    });

  /** A page of the deposits in `status`, as the deposits page shows it. */
  const depositsOf = async ({ session, query }: OperatorAsk, status: 'held' | 'credited', extra = {}) => {
    const page = await billing.deposits.list(status, { limit: PAGE_SIZE, cursor: query.cursor || undefined });
    return depositsPage(session, page.deposits, { status, nextCursor: page.next_cursor, ...extra });
  };

  deposits.view(DEPOSITS, async (ask) => {
    const status = ask.query.status || 'held';
    if (status !== 'held' && status !== 'credited')
      return badRequest(ask, { href: DEPOSITS, text: 'See held deposits' });
    return depositsOf(ask, status, { notice: noticeOf(ask.query, NOTICES) });
  });

  deposits.post(`${DEPOSITS}/:id/assign`, {
    run: async (ask) => {
      const id = idOf(ask, 'id');
      const organizationId = (ask.body.organization_id ?? '').trim();
      const reason = (ask.body.reason ?? '').trim();
      if (organizationId === '')
        throw new FormRefusal({ organization_id: 'Enter the id of the organization to credit (org_…).' });
      if (!ADMIN_ID.test(organizationId))
        throw new FormRefusal({ organization_id: 'An organization id looks like org_… (letters, digits and _).' });
      const reasonWrong = reasonError(reason, false);
      if (reasonWrong) throw new FormRefusal({ reason: reasonWrong });
      try {
        await ask.call(operator.operations.deposits.assignDeposit, {
          id,
          organization_id: organizationId,
          ...(reason ? { reason } : {}),
        });
      } catch (error) {
        // The deposit's not_found is the 404 page; the organization's, a form error.
        if (error instanceof ApiError && error.code === 'not_found' && /organization/.test(error.message))
          throw new FormRefusal({ organization_id: 'No organization has this id.' });
        throw error;
      }
      return `${DEPOSITS}?notice=assigned`;
    },
    // The held deposits again (the first page), the refusal on the deposit's form or above the list.
    page: (ask, refusal) =>
      depositsOf({ ...ask, query: {} }, 'held', { form: { depositId: ask.params.id, ...refusal } }),
  });
}
