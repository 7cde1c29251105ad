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
import { registerPaymentRequired } from './payment-required.ts';
import { BillingRepository } from './repository.ts';
import { registerBillingRoutes } from './routes.ts';
import { BillingService } from './service.ts';
import { UsageService } from './usage.ts';

export interface BillingModule {
  billing: BillingService;
  usage: UsageService;
  checkout: CheckoutService;
  enforcement: BillingEnforcement;
}

export function build(deps: { database: Database; clock: Clock; config: Config; cells: CellsService; events: EventsService }): BillingModule {
  const repo = new BillingRepository(deps.database.db);
  const postgres = deps.database.dialect === 'postgres';
  const billing = new BillingService({ repo, clock: deps.clock, config: deps.config, cells: deps.cells, events: deps.events, postgres });
  return {
    billing,
    usage: new UsageService({ repo, clock: deps.clock }),
    checkout: new CheckoutService({ repo, billing, clock: deps.clock, baseUrl: deps.config.baseUrl }),
    enforcement: new BillingEnforcement({ repo, billing, clock: deps.clock, postgres }),
  };
}

/** The completion of every billing 402 (checkout URL, x402 header): registered before the routes. */
export function registerConventions(app: App, module: BillingModule, config: Config): void {
  registerPaymentRequired(app, { checkout: module.checkout, baseUrl: config.baseUrl, testnet: config.x402Testnet, enabled: () => module.billing.enabled });
}

export function register(app: App, module: BillingModule): void {
  registerBillingRoutes(app, module.billing, module.usage);
  registerCheckoutRoutes(app, module.checkout);
  registerBillingAdminRoutes(app, module.billing);
}
