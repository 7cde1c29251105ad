// Billing and usage (contract §7): the billing state and ledger of each organization, payment
// quotes, payer wallets, usage reads and the operator's billing routes.
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { EventsService } from '../events/service.ts';
import { BillingAccounts } from './accounts.ts';
import { billingAdminOperations } from './admin-operations.ts';
import { registerBillingAdminRoutes } from './admin-routes.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { CheckoutService } from './checkout.ts';
import { registerCheckoutRoutes } from './checkout-routes.ts';
import { PaymentCrediting } from './crediting.ts';
import { DepositsService } from './deposits.ts';
import { depositOperations } from './deposits-operations.ts';
import { registerDepositRoutes } from './deposits-routes.ts';
import { BillingEnforcement } from './enforcement.ts';
import { registerMpp, unavailableMpp, type MppPort } from './mpp-http.ts';
import { registerMppRoutes } from './mpp-routes.ts';
import { PaymentOffers } from './offers.ts';
import { BillingOperator, type OrganizationFinder } from './operator.ts';
import type { Invoker } from '../../operations/invoke.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import { cardOffCause, PaymentCompletion } from './payment-required.ts';
import { BillingPeriods } from './periods.ts';
import { BillingQuotes } from './quotes.ts';
import { BillingRepository } from './repository.ts';
import { registerBillingRoutes } from './routes.ts';
import { billingOperations } from './operations.ts';
import { BillingService } from './service.ts';
import { registerStripeRoutes } from './stripe-routes.ts';
import type { StripeCheckout } from './stripe.ts';
import { UsageService } from './usage.ts';
import { WalletsService } from './wallets.ts';
import { registerX402, X402Settlement } from './x402.ts';
import { registerX402Routes } from './x402-routes.ts';

/** The billing module: its services (stripe: when CELLGATE_STRIPE_* is configured; mpp: 409 unless CELLGATE_MPP_* is), operations and routes. */
export type BillingModule = Awaited<ReturnType<typeof build>>;

/** Stripe and MPP are loaded only when configured: their libraries are heavy in memory. */
export async function build(deps: {
  database: Database;
  clock: Clock;
  config: Config;
  cells: CellsService;
  events: EventsService;
  /** The operator audit log (admin module): operator actions are recorded in their transaction. */
  audit: RecordOperatorAction;
  /** The admin's organization pages read organizations through their module. */
  organizations: OrganizationFinder;
}) {
  const { config } = deps;
  const enabled = config.billing;
  const repo = new BillingRepository(deps.database.db);
  const offers = new PaymentOffers(config);
  const accounts = new BillingAccounts({ ...deps, repo });
  // What the services take from one another; each reads the part its deps type names.
  const shared = { ...deps, enabled, repo, offers, accounts };
  const quotes = new BillingQuotes(shared);
  const crediting = new PaymentCrediting(shared);
  const billing = new BillingService(shared);
  const base = { ...shared, quotes, crediting, billing };
  const stripe: StripeCheckout | null = config.stripe
    ? new (await import('./stripe.ts')).StripeCheckout({
        ...base,
        config: config.stripe,
        consoleUrl: config.consoleUrl,
      })
    : null;
  const mpp: MppPort = config.mpp
    ? new (await import('./mpp.ts')).MppRail({ ...base, config: config.mpp, baseUrl: config.baseUrl })
    : unavailableMpp(() => enabled);
  const checkout = new CheckoutService({ ...base, baseUrl: config.baseUrl, stripe });
  const x402 = new X402Settlement({
    ...base,
    testnet: config.x402Testnet,
    facilitatorUrl: config.x402FacilitatorUrl,
    facilitatorTimeoutMs: config.x402FacilitatorTimeoutMs,
  });
  const services = {
    /** The organization's billing as agents, the console and the status check read it. */
    billing,
    /** What each intent costs now (requirements, the 402 of paying an intent). */
    quotes,
    wallets: new WalletsService(base),
    operator: new BillingOperator(base),
    /** Period ends: the billing-periods worker's step. */
    periods: new BillingPeriods(base),
    usage: new UsageService(base),
    checkout,
    stripe,
    enforcement: new BillingEnforcement(base),
    mpp,
    x402,
    /** Completes a 402 (checkout URL, x402 quote) for REST and for MCP tools. */
    payments: new PaymentCompletion({
      checkout,
      x402,
      testnet: config.x402Testnet,
      enabled: () => enabled,
      cardOff: cardOffCause(config),
    }),
    deposits: new DepositsService({ ...base, secret: config.x402DepositSecret }),
  };
  return {
    ...services,
    /** The organization's billing operations: its REST routes and MCP tools. */
    operations: billingOperations(services),
    /** The operator's (admin routes and the operator console): organizations' billing, and deposits. */
    adminOperations: billingAdminOperations(services.operator),
    depositOperations: depositOperations(services.deposits),
  };
}

/** x402 payment on agent routes and the completion of every billing 402: registered before the routes. */
export function registerConventions(app: App, module: BillingModule, invoker: Invoker): void {
  registerX402(app, module.x402);
  registerMpp(app);
  // The completion of every 402 payment_required (of an operation, or of an agent's REST route).
  invoker.addEnricher(module.payments.enrich);
}

export function register(app: App, module: BillingModule, rest: RestBinder): void {
  registerBillingRoutes(app, rest, module.operations);
  registerCheckoutRoutes(app, module.checkout);
  registerStripeRoutes(app, { stripe: module.stripe, enabled: () => module.billing.enabled });
  registerX402Routes(app, module);
  registerMppRoutes(app, module);
  registerDepositRoutes(app, module.deposits, rest, module.depositOperations);
  registerBillingAdminRoutes(app, rest, module.adminOperations);
}
