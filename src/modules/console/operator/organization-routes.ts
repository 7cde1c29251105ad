// The operator's organizations and deposits:
//   GET  /console/operator/organizations[?state=&email=&cursor=]
//   GET  /console/operator/organizations/:id                 cells, ledger, usage, the forms
//   POST /console/operator/organizations/:id/{credits,grant,suspend,reinstate}   with a reason
//   GET  /console/operator/deposits[?status=credited&cursor=]
//   POST /console/operator/deposits/:id/assign
// Each action goes through the billing operator service the admin API uses, recorded with the
// session's admin token id. A bad value is a form error on the page (400); a refusal (409) is said
// above its form; success is a redirect (Post/Redirect/Get) to the page with a notice.
import type { Html } from '../../../lib/html.ts';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { BILLING_STATES } from '../../billing/lifecycle.ts';
import { usdExact } from '../../billing/money.ts';
import { fieldErrorsOf, noticeOf, param, text } from '../account/shared.ts';
import { registerFormParser, sendPage } from '../http.ts';
import { badListLink, OPERATOR_PATH, redirect } from './http.ts';
import { operatorMessagePage } from './layout.ts';
import { actAs, type OperatorConsole } from './module.ts';
import {
  depositsPage,
  organizationPage,
  organizationPath,
  organizationsPage,
  type FormState,
  type OrganizationForm,
} from './organization-pages.ts';
import { HIDDEN, PUBLIC } from './routes.ts';
import type { OperatorSession } from './service.ts';

const ID = /^[A-Za-z0-9_]{1,64}$/;
const PAGE_SIZE = 25;
const REASON_MAX = 500;
const FORMS: readonly OrganizationForm[] = ['credits', 'grant', 'suspend', 'reinstate'];
const NOTICES: Record<string, string> = {
  credits: 'Credited: the balance and the ledger show it.',
  grant: 'Granted: the organization is active at the tier.',
  suspend: 'Suspended: sends and new cells are refused until reinstated.',
  reinstate: 'Reinstated.',
  assigned: 'Deposit assigned: the organization was credited.',
};
const FIELD_WORDS = { amount_usd: 'The amount', tier: 'The tier', months: 'Months', reason: 'The reason' };

export function registerOrganizationPages(app: App, operator: OperatorConsole): void {
  const { guard, billing, repo } = operator;

  const notFound = (reply: FastifyReply, session: OperatorSession) =>
    sendPage(
      reply,
      404,
      operatorMessagePage(session, 'Organization not found', 'No organization has this id.', {
        href: `${OPERATOR_PATH}/organizations`,
        text: 'Back to organizations',
      }),
    );

  /** The organization page's data; null when there is no such organization. */
  async function organizationView(id: string) {
    let org: Awaited<ReturnType<typeof billing.operator.organization>>;
    try {
      org = await billing.operator.organization(id);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
    // This month's usage (UTC), as the organization's own billing page shows it.
    const now = operator.clock.now();
    const month = { year: now.getUTCFullYear(), month: now.getUTCMonth() };
    const range = {
      from: new Date(Date.UTC(month.year, month.month, 1)).toISOString(),
      to: new Date(Date.UTC(month.year, month.month + 1, 1)).toISOString(),
    };
    const [cells, ledger, usage, daily] = await Promise.all([
      repo.cellsOf(id, 100),
      repo.ledger(id, 50),
      billing.usage.summary(id, range),
      billing.usage.daily(id, range),
    ]);
    return {
      org,
      cells,
      ledger: ledger.map((entry) => ({ ...entry, amount_usd: usdExact(Number(entry.amount_micros)) })),
      usage,
      month,
      days: daily.days,
      tiers: Object.keys(billing.billing.prices.tiers),
    };
  }

  async function showOrganization(
    reply: FastifyReply,
    session: OperatorSession,
    id: string,
    status: number,
    extra: { state?: FormState; notice?: Html },
  ) {
    const view = await organizationView(id);
    if (!view) return notFound(reply, session);
    return sendPage(reply, status, organizationPage(session, view.org, { ...view, ...extra }));
  }

  /** The form's own checks (the service checks again): a reason, and whole months. */
  function checked(form: OrganizationForm, values: Record<string, string>): Record<string, string> {
    const errors: Record<string, string> = {};
    if (values.reason === '') errors.reason = 'Enter a reason: it is kept with the action.';
    else if (values.reason.length > REASON_MAX) errors.reason = `The reason is at most ${REASON_MAX} characters.`;
    if (form === 'credits' && values.amount_usd === '') errors.amount_usd = 'Enter an amount in dollars, like 25.00.';
    if (form === 'grant') {
      const months = Number(values.months);
      if (!/^\d{1,3}$/.test(values.months) || months < 1 || months > 120)
        errors.months = 'Months must be a whole number from 1 to 120.';
      if (values.tier === '') errors.tier = 'Choose a tier.';
    }
    return errors;
  }

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    registerFormParser(scope);

    scope.get(`${OPERATOR_PATH}/organizations`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const back = { href: `${OPERATOR_PATH}/organizations`, text: 'See every organization' };
      const state = text(request.query, 'state');
      const email = text(request.query, 'email').trim();
      const cursor = text(request.query, 'cursor') || undefined;
      if (state !== '' && !(BILLING_STATES as readonly string[]).includes(state))
        return sendPage(
          reply,
          400,
          operatorMessagePage(
            session,
            'Unknown state',
            `The billing state is one of: ${BILLING_STATES.join(', ')}.`,
            back,
          ),
        );
      if (email.length > 254) return badListLink(reply, session, back);
      let page: Awaited<ReturnType<typeof billing.operator.listOrganizations>>;
      try {
        page = await billing.operator.listOrganizations(
          { state: state || undefined, email: email.toLowerCase() || undefined },
          { limit: PAGE_SIZE, cursor },
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request') return badListLink(reply, session, back);
        throw error;
      }
      const organizations = await Promise.all(
        page.organizations.map(async (org) => {
          const status = await billing.billing.status(org.id);
          return {
            ...org,
            prepaid_balance_usd: status.prepaid_balance_usd,
            active_cells: status.cells.active,
          };
        }),
      );
      return sendPage(
        reply,
        200,
        organizationsPage(session, organizations, {
          states: BILLING_STATES,
          state: state || null,
          email,
          nextCursor: page.next_cursor,
        }),
      );
    });

    scope.get(`${OPERATOR_PATH}/organizations/:id`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const id = param(request.params, 'id');
      if (!ID.test(id)) return notFound(reply, session);
      return showOrganization(reply, session, id, 200, { notice: noticeOf(request.query, NOTICES) });
    });

    for (const form of FORMS) {
      scope.post(
        `${OPERATOR_PATH}/organizations/:id/${form}`,
        { config: PUBLIC, schema: HIDDEN },
        async (request, reply) => {
          const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
          if (!session) return reply;
          const id = param(request.params, 'id');
          if (!ID.test(id)) return notFound(reply, session);
          const values = {
            reason: text(request.body, 'reason').trim(),
            amount_usd: text(request.body, 'amount_usd').trim().replace(/^\$/, ''),
            tier: text(request.body, 'tier').trim(),
            months: text(request.body, 'months').trim(),
          };
          const errors = checked(form, values);
          if (Object.keys(errors).length > 0)
            return showOrganization(reply, session, id, 400, { state: { form, values, errors } });
          const ops = operator.operations.billing;
          const { reason } = values;
          try {
            if (form === 'credits')
              await actAs(operator, session, ops.creditOrganization, { id, amount_usd: values.amount_usd, reason });
            else if (form === 'grant')
              await actAs(operator, session, ops.grantOrganization, {
                id,
                tier: values.tier,
                months: Number(values.months),
                reason,
              });
            else if (form === 'suspend') await actAs(operator, session, ops.suspendOrganization, { id, reason });
            else await actAs(operator, session, ops.reinstateOrganization, { id, reason });
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            if (error.code === 'not_found') return notFound(reply, session);
            const fields = fieldErrorsOf(error, FIELD_WORDS);
            if (fields) return showOrganization(reply, session, id, 400, { state: { form, values, errors: fields } });
            if (error.status >= 500) throw error;
            return showOrganization(reply, session, id, error.status, {
              state: { form, values, errors: {}, refusal: error.message },
            });
          }
          return redirect(reply, `${organizationPath(id)}?notice=${form}`);
        },
      );
    }

    scope.get(`${OPERATOR_PATH}/deposits`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const back = { href: `${OPERATOR_PATH}/deposits`, text: 'See held deposits' };
      const status = text(request.query, 'status') || 'held';
      if (status !== 'held' && status !== 'credited') return badListLink(reply, session, back);
      const cursor = text(request.query, 'cursor') || undefined;
      try {
        const page = await billing.deposits.list(status, { limit: PAGE_SIZE, cursor });
        return sendPage(
          reply,
          200,
          depositsPage(session, page.deposits, {
            status,
            nextCursor: page.next_cursor,
            notice: noticeOf(request.query, NOTICES),
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request') return badListLink(reply, session, back);
        throw error;
      }
    });

    scope.post(`${OPERATOR_PATH}/deposits/:id/assign`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const depositId = param(request.params, 'id');
      const organizationId = text(request.body, 'organization_id').trim();
      const reason = text(request.body, 'reason').trim();
      const again = async (status: number, error: string, field: 'organization_id' | 'reason' = 'organization_id') => {
        const page = await billing.deposits.list('held', { limit: PAGE_SIZE });
        return sendPage(
          reply,
          status,
          depositsPage(session, page.deposits, {
            status: 'held',
            nextCursor: page.next_cursor,
            form: { depositId, organizationId, reason, error, field },
          }),
        );
      };
      const depositNotFound = () =>
        sendPage(
          reply,
          404,
          operatorMessagePage(session, 'Deposit not found', 'No deposit has this id.', {
            href: `${OPERATOR_PATH}/deposits`,
            text: 'Back to deposits',
          }),
        );
      if (!ID.test(depositId)) return depositNotFound();
      if (organizationId === '') return again(400, 'Enter the id of the organization to credit (org_…).');
      if (!ID.test(organizationId)) return again(400, 'An organization id looks like org_… (letters, digits and _).');
      if (reason.length > REASON_MAX) return again(400, `The reason is at most ${REASON_MAX} characters.`, 'reason');
      try {
        await actAs(operator, session, operator.operations.deposits.assignDeposit, {
          id: depositId,
          organization_id: organizationId,
          ...(reason ? { reason } : {}),
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'not_found' && error.message.includes('organization'))
          return again(400, 'No organization has this id.');
        if (error.code === 'not_found') return depositNotFound();
        if (error.status >= 500) throw error;
        return sendPage(
          reply,
          error.status,
          operatorMessagePage(session, 'Not possible', error.message, {
            href: `${OPERATOR_PATH}/deposits`,
            text: 'Back to deposits',
          }),
        );
      }
      return redirect(reply, `${OPERATOR_PATH}/deposits?notice=assigned`);
    });
  });
}
