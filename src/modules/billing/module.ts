// Billing and usage (contract §7): the billing state and ledger of each organization, payment
// quotes, payer wallets, usage reads and the operator's billing routes.
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { EventsService } from '../events/service.ts';
import { BillingAccounts } from './accounts.ts';
import { billingAdminOperations, type BillingAdminOperations } from './admin-operations.ts';
import { registerBillingAdminRoutes } from './admin-routes.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { CheckoutService } from './checkout.ts';
import { registerCheckoutRoutes } from './checkout-routes.ts';
import { PaymentCrediting } from './crediting.ts';
import { DepositsService } from './deposits.ts';
import { depositOperations, type DepositOperations } from './deposits-operations.ts';
import { registerDepositRoutes } from './deposits-routes.ts';
import { BillingEnforcement } from './enforcement.ts';
import { registerMpp, unavailableMpp, type MppPort } from './mpp-http.ts';
import { registerMppRoutes } from './mpp-routes.ts';
import { PaymentOffers } from './offers.ts';
import { BillingOperator, type OrganizationFinder } from './operator.ts';
import type { Invoker } from '../../operations/invoke.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import { cardOffCause, PaymentCompletion, registerPaymentRequired } from './payment-required.ts';
import { BillingPeriods } from './periods.ts';
import { BillingQuotes } from './quotes.ts';
import { BillingRepository } from './repository.ts';
import { registerBillingRoutes } from './routes.ts';
import { billingOperations, type BillingOperations } from './operations.ts';
import { BillingService } from './service.ts';
import { registerStripeRoutes } from './stripe-routes.ts';
import type { StripeCheckout } from './stripe.ts';
import { UsageService } from './usage.ts';
import { WalletsService } from './wallets.ts';
import { registerX402, X402Settlement } from './x402.ts';
import { registerX402Routes } from './x402-routes.ts';

export interface BillingModule {
  /** The organization's billing as agents, the console and the status check read it. */
  billing: BillingService;
  /** What each intent costs now (requirements, the 402 of paying an intent). */
  quotes: BillingQuotes;
  wallets: WalletsService;
  operator: BillingOperator;
  /** Period ends: the billing-periods worker's step. */
  periods: BillingPeriods;
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
  /** The organization's billing operations: its REST routes and MCP tools. */
  operations: BillingOperations;
  /** The operator's (admin routes and the operator console): organizations' billing, and deposits. */
  adminOperations: BillingAdminOperations;
  depositOperations: DepositOperations;
}

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
}): Promise<BillingModule> {
  const { clock, config, cells, events } = deps;
  const enabled = config.billing;
  const repo = new BillingRepository(deps.database.db);
  const offers = new PaymentOffers(config);
  const accounts = new BillingAccounts({ repo, cells, events, clock, config });
  const quotes = new BillingQuotes({ accounts, offers, cells, config });
  const crediting = new PaymentCrediting({ repo, accounts, events, clock, config });
  const billing = new BillingService({ accounts, offers, config });
  const stripe = config.stripe
    ? new (await import('./stripe.ts')).StripeCheckout({
        config: config.stripe,
        repo,
        crediting,
        clock,
        consoleUrl: config.consoleUrl,
      })
    : null;
  const mpp = config.mpp
    ? new (await import('./mpp.ts')).MppRail({
        repo,
        offers,
        crediting,
        enabled,
        clock,
        config: config.mpp,
        baseUrl: config.baseUrl,
      })
    : unavailableMpp(() => enabled);
  const checkout = new CheckoutService({
    repo,
    accounts,
    quotes,
    offers,
    crediting,
    clock,
    baseUrl: config.baseUrl,
    stripe,
  });
  const x402 = new X402Settlement({
    repo,
    offers,
    crediting,
    enabled,
    clock,
    testnet: config.x402Testnet,
    facilitatorUrl: config.x402FacilitatorUrl,
    facilitatorTimeoutMs: config.x402FacilitatorTimeoutMs,
  });
  const services = {
    billing,
    quotes,
    wallets: new WalletsService({ repo, clock }),
    operator: new BillingOperator({
      repo,
      accounts,
      billing,
      clock,
      config,
      audit: deps.audit,
      organizations: deps.organizations,
    }),
    periods: new BillingPeriods({ repo, accounts, events, clock, config }),
    usage: new UsageService({ repo, clock }),
    checkout,
    stripe,
    enforcement: new BillingEnforcement({ repo, accounts, offers, clock, config }),
    mpp,
    x402,
    payments: new PaymentCompletion({
      checkout,
      x402,
      testnet: config.x402Testnet,
      enabled: () => enabled,
      cardOff: cardOffCause(config),
    }),
    deposits: new DepositsService({
      repo,
      offers,
      crediting,
      clock,
      secret: config.x402DepositSecret,
      audit: deps.audit,
      organizations: deps.organizations,
    }),
  };
  return {
    ...services,
    operations: billingOperations(services),
    adminOperations: billingAdminOperations(services.operator),
    depositOperations: depositOperations(services.deposits),
  };
}

/** x402 payment on agent routes and the completion of every billing 402: registered before the routes. */
export function registerConventions(app: App, module: BillingModule, invoker: Invoker): void {
  registerX402(app, module.x402);
  registerMpp(app);
  registerPaymentRequired(invoker, module.payments);
}

export function register(app: App, module: BillingModule, rest: RestBinder): void {
  registerBillingRoutes(app, rest, module.operations);
  registerCheckoutRoutes(app, module.checkout);
  registerStripeRoutes(app, {
    checkout: module.checkout,
    stripe: module.stripe,
    enabled: () => module.billing.enabled,
  });
  registerX402Routes(app, module);
  registerMppRoutes(app, module);
  registerDepositRoutes(app, module.deposits, rest, module.depositOperations);
  registerBillingAdminRoutes(app, rest, module.adminOperations);
}
