// Every billing 402 (contract §2, §7) is something a client can act on at once: its PaymentDetails
// gain a `checkout_url` for the card rail, and it carries the x402 v2 PaymentRequired built from
// the same quotes (an open quote of exactly that amount; `accepts` is empty when no network is
// configured), so an x402 client pays and retries the original request unchanged. REST carries it in the
// `PAYMENT-REQUIRED` header; MCP tool errors carry it in their error JSON. The completion is a
// problem enricher of the operations' invoke, run on the ApiError before anything renders it.
import { isLoopbackUrl, type Config } from '../../config.ts';
import { ApiError } from '../../lib/errors.ts';
import type { ProblemEnricher } from '../../operations/invoke.ts';
import type { CheckoutService } from './checkout.ts';
import { parseUsd } from './money.ts';
import type { PaymentDetails } from './offers.ts';
import { pricedOf } from './payments.ts';
import { encodeHeader, x402PaymentRequired, type X402Settlement } from './x402.ts';

/**
 * Why a 402 offers no card, and the fix, when the deployment has no card processor; null when it
 * has one. The usual cause is a container: CELLGATE_HOST=0.0.0.0 without CELLGATE_BASE_URL makes
 * the base URL http://0.0.0.0:8080, not loopback, where the built-in card page is off by default.
 */
export function cardOffCause(config: Pick<Config, 'cardProcessor' | 'baseUrl' | 'stripe'>): string | null {
  if (config.cardProcessor !== 'off') return null;
  if (config.stripe || isLoopbackUrl(config.baseUrl))
    return 'Card payments are off on this deployment (CELLGATE_CARD_PROCESSOR=off): pay with another rail of GET /v1/billing/payment-options.';
  return (
    `Card payments are off on this deployment: its base URL, ${config.baseUrl}, is not a loopback address and Stripe is not configured, so no card processor runs ` +
    '(a server listening on CELLGATE_HOST=0.0.0.0 without CELLGATE_BASE_URL gets such a URL). ' +
    "The operator's fix: set CELLGATE_BASE_URL to the service's public https URL with CELLGATE_STRIPE_SECRET_KEY and CELLGATE_STRIPE_WEBHOOK_SECRET, " +
    'or on a development machine CELLGATE_BASE_URL=http://localhost:8080 (or CELLGATE_CARD_PROCESSOR=local). ' +
    'Until then pay with another rail of GET /v1/billing/payment-options, if any.'
  );
}

export class PaymentCompletion {
  private readonly deps: {
    checkout: CheckoutService;
    x402: X402Settlement;
    testnet: boolean;
    enabled: () => boolean;
    /** cardOffCause() of the configuration: added to the detail of every 402 that offers no card. */
    cardOff: string | null;
  };

  constructor(deps: PaymentCompletion['deps']) {
    this.deps = deps;
  }

  /** Opens the card checkout and the x402 quote of these details; the x402 PaymentRequired, if any. */
  async complete(organizationId: string, details: PaymentDetails, resourceUrl: string, description: string) {
    if (!this.deps.enabled()) return null;
    if (parseUsd(details.amount_usd) !== null && details.rails.includes('card_processor') && !details.checkout_url)
      details.checkout_url = (await this.deps.checkout.open(organizationId, pricedOf(details))).checkout_url;
    if (details.x402) await this.deps.x402.open(organizationId, details);
    return x402PaymentRequired(details, resourceUrl, this.deps.testnet, description);
  }

  /**
   * The problem enricher of every operation (src/operations/invoke.ts) and REST route: a 402
   * payment_required, while still an ApiError, gains its checkout URL and x402 PaymentRequired —
   * in the PAYMENT-REQUIRED header where the caller carries headers (REST), else in the error
   * (`x402_payment_required`, MCP tool errors).
   */
  readonly enrich: ProblemEnricher = async ({ principal, resourceUrl, headers }, error) => {
    const details = error.extensions?.payment as PaymentDetails | undefined;
    if (error.code !== 'payment_required' || !details) return error;
    const x402 = await this.complete(principal.organizationId, details, resourceUrl, error.message || details.intent);
    // Without headers (an MCP tool error) an x402 block with nothing to accept would only invite a
    // futile attempt: it is left out, and the message says plainly who pays, and where.
    const agentRail = x402 !== null && x402.accepts.length > 0;
    const { cardOff } = this.deps;
    const notes = [
      cardOff && !details.rails.includes('card_processor') ? cardOff : null,
      headers || agentRail || !x402 ? null : noAgentRail(details.checkout_url),
    ];
    const message = [error.message, ...notes].filter(Boolean).join(' ');
    return new ApiError('payment_required', message, {
      errors: error.errors,
      headers: { ...error.headers, ...(x402 && headers ? { 'payment-required': encodeHeader(x402) } : {}) },
      extensions: {
        ...error.extensions,
        payment: details,
        ...(agentRail && !headers ? { x402_payment_required: x402 } : {}),
      },
    });
  };
}

/** What a payment_required says where no agent can pay it itself (no x402 network configured). */
const noAgentRail = (checkoutUrl: string | undefined) =>
  checkoutUrl
    ? `No agent payment rail is configured here: a person pays it by card at payment.checkout_url (${checkoutUrl}); then call again.`
    : 'No payment rail is configured here: ask the operator of this deployment.';
