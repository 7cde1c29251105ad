// Where a payment can be made (contract §7): the rails this deployment takes, an x402 quote per
// configured network, the MPP summary, and the PaymentDetails of a price, which is the body of
// every billing 402 and of GET /v1/billing/x402/requirements. Configuration only: no database.
import type { Static } from 'typebox';
import type { Config } from '../../config.ts';
import { ApiError, invalidField } from '../../lib/errors.ts';
import type { Intent } from './lifecycle.ts';
import { micros, usdString, type Micros } from './money.ts';
import { mppSummary } from './mpp-config.ts';
import type * as schemas from './schemas.ts';
import { ASSET, chainOf, NETWORKS, type Network } from './networks.ts';
import type { PaymentsTable } from './tables.ts';

type X402Requirements = Static<typeof schemas.X402Requirements>;
/** The body of every billing 402's `payment` (mpp, when configured: realm, methods, pay_url). */
export type PaymentDetails = Omit<Static<typeof schemas.PaymentDetails>, 'mpp'> & {
  mpp?: ReturnType<typeof mppSummary>;
};

/** What a price buys beyond its intent: the tier of a period, the cell of a one-cell renewal. */
export type PriceSubject = { tier?: string; cellId?: string };

/** With billing off nothing is charged or paid. */
export const billingOff = () =>
  new ApiError('billing_disabled', 'Billing is off on this deployment: nothing is charged or paid.');

type OffersConfig = Pick<
  Config,
  'x402BasePayTo' | 'x402SolanaPayTo' | 'x402Testnet' | 'baseUrl' | 'mpp' | 'cardProcessor'
>;

export class PaymentOffers {
  private readonly config: OffersConfig;

  constructor(config: OffersConfig) {
    this.config = config;
  }

  /** Who carries the card rail; `off`: no card rail at all. */
  get cardProcessor() {
    return this.config.cardProcessor;
  }

  /** The networks with a seller address configured, in a fixed order. */
  private payTo(): Partial<Record<Network, string>> {
    const payTo: Partial<Record<Network, string>> = {};
    if (this.config.x402BasePayTo) payTo.base = this.config.x402BasePayTo;
    if (this.config.x402SolanaPayTo) payTo.solana = this.config.x402SolanaPayTo;
    return payTo;
  }

  /** The seller address of a configured x402 network. */
  payToOf(network: Network): string | undefined {
    return this.payTo()[network];
  }

  rails(): string[] {
    const card = this.config.cardProcessor === 'off' ? [] : ['card_processor'];
    return [...card, ...(Object.keys(this.payTo()).length > 0 ? ['x402'] : []), ...(this.config.mpp ? ['mpp'] : [])];
  }

  /** The mpp block (realm, methods, where to pay); undefined when MPP is not configured. */
  mpp() {
    return this.config.mpp ? mppSummary(this.config.mpp, this.config.baseUrl) : undefined;
  }

  /** The card_processor block of the payment options; undefined when there is no card rail. */
  card() {
    const provider = this.config.cardProcessor;
    return provider === 'off'
      ? undefined
      : { provider, checkout_url: `${this.config.baseUrl}/v1/billing/checkout`, currency: 'USD' };
  }

  /** The x402 block: every configured network, or only `only`; undefined when none is configured. */
  x402(only?: Network): X402Requirements | undefined {
    const payTo = this.payTo();
    const networks = NETWORKS.filter((n) => payTo[n]);
    if (only && !payTo[only]) {
      throw invalidField(
        'network',
        'not_configured',
        `The ${only} rail is not configured here; configured: ${networks.join(', ') || 'none'}.`,
      );
    }
    if (networks.length === 0) return undefined;
    const quoted = only ? [only] : networks;
    const quotes = quoted.map((network): Static<typeof schemas.X402Quote> => {
      const chain = chainOf(network, this.config.x402Testnet);
      return {
        network,
        caip2_network: chain.caip2,
        asset: ASSET,
        pay_to: payTo[network] as string,
        ...(network === 'base' ? { contract: chain.token } : { mint: chain.token }),
      };
    });
    return {
      schemes: ['exact'],
      networks,
      accepted_networks: quoted,
      quotes,
      asset: ASSET,
      ...(quotes.length === 1 ? { pay_to: quotes[0].pay_to, network: quotes[0].caip2_network } : {}),
    };
  }

  /** The PaymentDetails of paying `amount` for `intent`, on every rail (x402: the given block). */
  details(intent: Intent, amount: Micros, what: PriceSubject, x402 = this.x402()): PaymentDetails {
    const mpp = this.mpp();
    return {
      amount_usd: usdString(amount),
      currency: 'USD',
      intent,
      ...(what.tier ? { tier: what.tier } : {}),
      ...(what.cellId ? { cell_id: what.cellId } : {}),
      rails: this.rails(),
      ...(x402 ? { x402 } : {}),
      ...(mpp ? { mpp } : {}),
    };
  }

  /** The 402 of contract §2: `payment` is the PaymentDetails of the intent that unblocks the action. */
  paymentRequired(detail: string, intent: Intent, amount: Micros, what: PriceSubject = {}): ApiError {
    return new ApiError('payment_required', detail, { extensions: { payment: this.details(intent, amount, what) } });
  }

  /** The 402 of paying this payment's intent and amount again (a rail refused what was sent for it). */
  paymentRequiredFor(detail: string, payment: Pick<PaymentsTable, 'intent' | 'amount_micros' | 'tier' | 'cell_id'>) {
    return this.paymentRequired(detail, payment.intent, micros(payment.amount_micros), {
      tier: payment.tier ?? undefined,
      cellId: payment.cell_id ?? undefined,
    });
  }
}
