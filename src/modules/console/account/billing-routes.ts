// /console/billing: status, the pay form and the month's usage, through the billing module the
// REST API uses: a card payment is the create_checkout operation (POST /v1/billing/checkout)
// followed by a 303 to its checkout URL; the x402 and MPP buttons show get_x402_requirements (GET
// /v1/billing/x402/requirements) as the requests an agent makes to pay.
import { monthOf } from './chart.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { consoleBinder, FormRefusal, refusalOf, type Ask } from '../binder.ts';
import { CONSOLE_PATH, safeNext } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import { messagePage } from '../pages.ts';
import type { Intent } from '../../billing/service.ts';
import { billingPage, RAIL_NAMES, RAILS, type PayForm, type Rail } from './billing-pages.ts';

const isRail = (rail: string): rail is Rail => (RAILS as readonly string[]).includes(rail);
/** Where Stripe Checkout pages live (Checkout Sessions' url). */
const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/**
 * Chromium applies form-action to the redirect that answers a form post, so a page holding a pay
 * form (Billing, a cell create's 402) allows the checkout's origins too: the API's (local card
 * page) and Stripe's. An onSend hook of such a page's routes.
 */
export function payFormOnSend(module: ConsoleModule) {
  const { stripe } = module.dashboard.billing;
  const checkoutOrigins = [...module.http.origins, ...(stripe ? [STRIPE_CHECKOUT_ORIGIN] : [])].join(' ');
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const csp = reply.getHeader('content-security-policy');
    if (typeof csp === 'string')
      reply.header(
        'content-security-policy',
        csp.replace("form-action 'self'", `form-action 'self' ${checkoutOrigins}`),
      );
    return payload;
  };
}

export function registerBillingPages(scope: App, module: ConsoleModule): void {
  const { billing, operations: ops } = module.dashboard.billing;
  const route = { onSend: payFormOnSend(module) };
  const back = { href: `${CONSOLE_PATH}/billing`, text: 'Back to billing' };
  const bind = consoleBinder(scope, module, { section: 'billing', back, missing: 'payment' });

  const pageOf = async ({ context, session }: Ask, options: Parameters<typeof billingPage>[2] = {}) =>
    billingPage(context, await billingView(module, session.organizationId), options);

  const show = (ask: Ask) => pageOf(ask, { checkout: ask.query.checkout, form: { back: safeNext(ask.query.return) } });
  bind.view(`${CONSOLE_PATH}/billing`, show, { route });

  bind.post(`${CONSOLE_PATH}/billing/pay`, {
    route,
    run: async (ask) => {
      const { session, body } = ask;
      if (!billing.enabled)
        return ask.send(
          409,
          messagePage(ask.context, 'Billing is off', 'This deployment does not charge: there is nothing to pay.', back),
        );
      const form: PayForm = {
        intent: body.intent ?? '',
        amount: (body.amount_usd ?? '').trim(),
        back: safeNext(body.return),
      };
      const rail = body.rail ?? '';
      const [intent, tier] = intentOf(form.intent ?? '', Object.keys(billing.prices.tiers));
      try {
        const errors: Record<string, string> = {};
        if (!intent) errors.intent = 'Choose what to pay for.';
        if (!isRail(rail)) errors.rail = 'Choose a way to pay: by card, x402 or MPP.';
        else if (!(await billing.paymentOptions(session.organizationId)).rails.includes(rail))
          errors.rail = `${RAIL_NAMES[rail]} is not configured on this deployment.`;
        if (intent === 'top_up' && form.amount === '') errors.amount_usd = 'Enter the amount to add, like 25 or 12.50.';
        if (!intent || !isRail(rail) || Object.keys(errors).length > 0) throw new FormRefusal(errors);
        // A plan's first month may carry a starting balance (contract §7): the amount, when given.
        const withAmount = intent === 'top_up' || (intent === 'setup' && form.amount !== '');
        const query = { intent, tier, amount_usd: withAmount ? form.amount : undefined };
        if (rail === 'card_processor') {
          // Where the payment started (the create-cell form, a thread, with what was typed): the
          // checkout's paid page leads back there. Only a console path; anything else is dropped.
          const url = new URL((await ask.call(ops.createCheckout, query)).checkout_url);
          if (form.back) url.searchParams.set('return', form.back);
          return url.toString();
        }
        const details = await ask.call(ops.getX402Requirements, query);
        // What the agent posts: the query's fields that are given.
        const paid = Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => !!entry[1]));
        return await pageOf(ask, { form, shown: { rail, details, body: paid } });
      } catch (error) {
        // The form's own checks and the operation's field errors alike; a refusal of the whole payment (409) is its page.
        const refusal = refusalOf(error, body);
        if (!refusal || Object.keys(refusal.errors).length === 0) throw error;
        const { amount_usd, rail: railError, ...others } = refusal.errors;
        const errors = { amount_usd, rail: railError, intent: Object.values(others).join(' ') || undefined };
        return ask.send(400, await pageOf(ask, { form: { ...form, errors } }));
      }
    },
  });
}

/**
 * What the billing page shows of an organization this month. `stripe`: card payments go to Stripe
 * Checkout (else the built-in card page); `apiBase`: the REST API's address, the oauth resource
 * `<base>/v1`, where agents pay.
 */
async function billingView(module: ConsoleModule, organizationId: string) {
  const { billing, usage, stripe } = module.dashboard.billing;
  const { month, range } = monthOf(module.clock.now());
  const [status, options, summary, daily] = await Promise.all([
    billing.status(organizationId),
    billing.paymentOptions(organizationId),
    usage.summary(organizationId, range),
    usage.daily(organizationId, range),
  ]);
  const tiers = Object.entries(billing.prices.tiers).map(([name, tier]) => ({ name, ...tier }));
  const apiBase = module.oauth.resources.v1;
  const { enabled } = billing;
  return { enabled, status, options, tiers, stripe: stripe !== null, apiBase, month, summary, days: daily.days };
}
export type BillingView = Awaited<ReturnType<typeof billingView>>;

/** The form's intent: `top_up`, `reinstate`, `create_cell` or `setup:<tier>` (with a tier of the price list). */
function intentOf(value: string, tiers: string[]): [Intent | null, string | undefined] {
  if (value === 'top_up' || value === 'reinstate' || value === 'create_cell') return [value, undefined];
  const tier = value.startsWith('setup:') ? value.slice('setup:'.length) : null;
  return tier !== null && tiers.includes(tier) ? ['setup', tier] : [null, undefined];
}
