// /console/billing: status, the pay form and the month's usage, through the billing module the
// REST API uses: a card payment is CheckoutService.start (POST /v1/billing/checkout) followed by a
// 303 to its checkout URL; the x402 and MPP buttons show BillingQuotes.requirements (what
// GET /v1/billing/x402/requirements answers) as the requests an agent makes to pay.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/types.ts';
import { contextOf, redirect } from '../guard.ts';
import { CONSOLE_PATH, safeNext, sendPage } from '../http.ts';
import type { ConsoleModule } from '../module.ts';
import type { ConsoleSession } from '../service.ts';
import { messagePage } from '../pages.ts';
import type { Intent } from '../../billing/service.ts';
import { billingPage, RAILS, type BillingView, type PayForm, type Rail, type ShownPayment } from './billing-pages.ts';
import { fieldErrorsOf, HIDDEN, orPage, PUBLIC, text } from './shared.ts';

const BACK = { href: `${CONSOLE_PATH}/billing`, text: 'Back to billing' };
const RAIL_NAMES: Record<Rail, string> = { card_processor: 'Card payment', x402: 'x402', mpp: 'MPP' };
/** Where Stripe Checkout pages live (Checkout Sessions' url). */
const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

type Outcome =
  | { kind: 'checkout'; url: string }
  | { kind: 'shown'; shown: ShownPayment }
  | { kind: 'invalid'; errors: NonNullable<PayForm['errors']> };

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
  const { guard, clock } = module;
  const { billing, quotes, usage, checkout, stripe } = module.dashboard.billing;
  // The oauth resource of the REST API is its address (`<base>/v1`): where agents pay.
  const apiBase = module.oauth.resources.v1;

  const onSend = payFormOnSend(module);

  async function viewOf(organizationId: string): Promise<BillingView> {
    const now = clock.now();
    const month = { year: now.getUTCFullYear(), month: now.getUTCMonth() };
    const range = {
      from: new Date(Date.UTC(month.year, month.month, 1)).toISOString(),
      to: new Date(Date.UTC(month.year, month.month + 1, 1)).toISOString(),
    };
    const [status, options, summary, daily] = await Promise.all([
      billing.status(organizationId),
      billing.paymentOptions(organizationId),
      usage.summary(organizationId, range),
      usage.daily(organizationId, range),
    ]);
    const tiers = Object.entries(billing.prices.tiers).map(([name, tier]) => ({ name, ...tier }));
    return {
      enabled: billing.enabled,
      status,
      options,
      tiers,
      stripe: stripe !== null,
      apiBase,
      month,
      summary,
      days: daily.days,
    };
  }

  const send = async (
    reply: FastifyReply,
    session: ConsoleSession,
    status: number,
    options: Parameters<typeof billingPage>[2] = {},
  ) =>
    sendPage(reply, status, billingPage(contextOf(session, 'billing'), await viewOf(session.organizationId), options));

  scope.get(`${CONSOLE_PATH}/billing`, { config: PUBLIC, schema: HIDDEN, onSend }, async (request, reply) => {
    const session = await guard.page(request, reply);
    if (!session) return reply;
    const back = safeNext(text(request.query, 'return'));
    return send(reply, session, 200, { checkout: text(request.query, 'checkout'), form: back ? { back } : undefined });
  });

  scope.post(`${CONSOLE_PATH}/billing/pay`, { config: PUBLIC, schema: HIDDEN, onSend }, async (request, reply) => {
    const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
    if (!session) return reply;
    const context = contextOf(session, 'billing');
    if (!billing.enabled)
      return sendPage(
        reply,
        409,
        messagePage(context, 'Billing is off', 'This deployment does not charge: there is nothing to pay.', BACK),
      );
    const form: PayForm = {
      intent: text(request.body, 'intent'),
      amount: text(request.body, 'amount_usd').trim(),
      back: safeNext(text(request.body, 'return')),
    };
    const rail = text(request.body, 'rail');
    const options = await billing.paymentOptions(session.organizationId);
    const outcome = await orPage(reply, context, BACK, 'payment', async (): Promise<Outcome> => {
      const errors: NonNullable<PayForm['errors']> = {};
      const [intent, tier] = intentOf(form.intent ?? '', Object.keys(billing.prices.tiers));
      if (!intent) errors.intent = 'Choose what to pay for.';
      if (!RAILS.includes(rail as Rail)) errors.rail = 'Choose a way to pay: by card, x402 or MPP.';
      else if (!options.rails.includes(rail))
        errors.rail = `${RAIL_NAMES[rail as Rail]} is not configured on this deployment.`;
      if (intent === 'top_up' && form.amount === '') errors.amount_usd = 'Enter the amount to add, like 25 or 12.50.';
      if (!intent || Object.keys(errors).length > 0) return { kind: 'invalid', errors };
      // A plan's first month may carry a starting balance (contract §7): the amount, when given.
      const withAmount = intent === 'top_up' || (intent === 'setup' && form.amount !== '');
      const query = { intent, tier, amount_usd: withAmount ? form.amount : undefined };
      try {
        if (rail === 'card_processor')
          return { kind: 'checkout', url: (await checkout.start(session.organizationId, query)).checkout_url };
        const details = await quotes.requirements(session.organizationId, query);
        const body = {
          intent,
          ...(tier ? { tier } : {}),
          ...(query.amount_usd ? { amount_usd: query.amount_usd } : {}),
        };
        return { kind: 'shown', shown: { rail: rail as 'x402' | 'mpp', details, body } };
      } catch (error) {
        const fields = fieldErrorsOf(error, { amount_usd: 'The amount', tier: 'The plan' });
        if (!fields) throw error;
        const { amount_usd: amount, ...others } = fields;
        return {
          kind: 'invalid',
          errors: { amount_usd: amount, intent: Object.values(others).join(' ') || undefined },
        };
      }
    });
    if (!outcome) return reply;
    if (outcome.kind === 'checkout') {
      // Where the payment started (the create-cell form, a thread, with what was typed): the
      // checkout's paid page leads back there. Only a console path; anything else is dropped.
      const url = new URL(outcome.url);
      if (form.back) url.searchParams.set('return', form.back);
      return redirect(reply, url.toString());
    }
    if (outcome.kind === 'shown') return send(reply, session, 200, { form, shown: outcome.shown });
    return send(reply, session, 400, { form: { ...form, errors: outcome.errors } });
  });
}

/** The form's intent: `top_up`, `reinstate`, `create_cell` or `setup:<tier>` (with a tier of the price list). */
function intentOf(value: string, tiers: string[]): [Intent | null, string | undefined] {
  if (value === 'top_up' || value === 'reinstate' || value === 'create_cell') return [value, undefined];
  const tier = value.startsWith('setup:') ? value.slice('setup:'.length) : null;
  return tier !== null && tiers.includes(tier) ? ['setup', tier] : [null, undefined];
}
