// Billing and usage (contract §7): the billing state and ledger of each organization, payment
// quotes, payer wallets, usage reads and the operator's billing routes.
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { EventsService } from '../events/service.ts';
import { registerBillingAdminRoutes } from './admin-routes.ts';
import { CheckoutService } from './checkout.ts';
import { BillingEnforcement } from './enforcement.ts';
import { registerCheckoutRoutes } from './checkout-routes.ts';
import { registerMpp, unavailableMpp, type MppPort } from './mpp-http.ts';
import { registerMppRoutes } from './mpp-routes.ts';
import { PaymentCompletion, registerPaymentRequired } from './payment-required.ts';
import { registerX402, X402Settlement } from './x402.ts';
import { registerX402Routes } from './x402-routes.ts';
import { DepositsService } from './deposits.ts';
import { DepositsRepository } from './deposits-repository.ts';
import { registerDepositRoutes } from './deposits-routes.ts';
import { BillingRepository } from './repository.ts';
import { registerBillingRoutes } from './routes.ts';
import { BillingService } from './service.ts';
import { registerStripeRoutes } from './stripe-routes.ts';
import type { StripeCheckout } from './stripe.ts';
import { UsageService } from './usage.ts';

export interface BillingModule {
  billing: BillingService;
  usage: UsageService;
  checkout: CheckoutService;
  /** Stripe Checkout, when CELLGATE_STRIPE_* is configured. */
  stripe: StripeCheckout | null;
  enforcement: BillingEnforcement;
  x402: X402Settlement;
  /** The MPP rail (CELLGATE_MPP_*); its pay route is 409 when it is not configured. */
  mpp: MppPort;
  deposits: DepositsService;
  /** Completes a 402 (checkout URL, x402 quote) for REST and for MCP tools. */
  payments: PaymentCompletion;
}

/** Stripe and MPP are loaded only when configured: their libraries are heavy in memory. */
export async function build(deps: { database: Database; clock: Clock; config: Config; cells: CellsService; events: EventsService }): Promise<BillingModule> {
  const repo = new BillingRepository(deps.database.db);
  const postgres = deps.database.dialect === 'postgres';
  const billing = new BillingService({ repo, clock: deps.clock, config: deps.config, cells: deps.cells, events: deps.events, postgres });
  const stripeConfig = deps.config.stripe;
  const stripe = stripeConfig ? new (await import('./stripe.ts')).StripeCheckout({ config: stripeConfig, repo, billing, clock: deps.clock, consoleUrl: deps.config.consoleUrl }) : null;
  const mppConfig = deps.config.mpp;
  const mpp = mppConfig ? new (await import('./mpp.ts')).MppRail({ repo, billing, clock: deps.clock, config: mppConfig, baseUrl: deps.config.baseUrl }) : unavailableMpp(() => billing.enabled);
  const checkout = new CheckoutService({ repo, billing, clock: deps.clock, baseUrl: deps.config.baseUrl, stripe });
  const x402 = new X402Settlement({ repo, billing, clock: deps.clock, testnet: deps.config.x402Testnet, facilitatorUrl: deps.config.x402FacilitatorUrl, facilitatorTimeoutMs: deps.config.x402FacilitatorTimeoutMs });
  return {
    billing,
    usage: new UsageService({ repo, clock: deps.clock }),
    checkout,
    stripe,
    enforcement: new BillingEnforcement({ repo, billing, clock: deps.clock, postgres }),
    mpp,
    x402,
    payments: new PaymentCompletion({ checkout, x402, testnet: deps.config.x402Testnet, enabled: () => billing.enabled }),
    deposits: new DepositsService({ repo: new DepositsRepository(deps.database.db), billingRepo: repo, billing, clock: deps.clock, secret: deps.config.x402DepositSecret }),
  };
}

/** x402 payment on agent routes and the completion of every billing 402: registered before the routes. */
export function registerConventions(app: App, module: BillingModule, config: Config): void {
  registerX402(app, module.x402);
  registerMpp(app);
  registerPaymentRequired(app, module.payments, config.baseUrl);
}

export function register(app: App, module: BillingModule): void {
  registerBillingRoutes(app, module.billing, module.usage);
  registerCheckoutRoutes(app, module.checkout);
  registerStripeRoutes(app, { checkout: module.checkout, stripe: module.stripe, enabled: () => module.billing.enabled });
  registerX402Routes(app, module.billing);
  registerMppRoutes(app, { billing: module.billing, mpp: module.mpp });
  registerDepositRoutes(app, module.deposits);
  registerBillingAdminRoutes(app, module.billing);
}
