// Payment discovery in the OpenAPI document (the extensions mppx's discovery reads, see
// mppx/discovery): `x-service-info` at the top, and `x-payment-info` on each operation that can
// answer 402 `payment_required`, with one offer per configured crypto rail. Advisory: the 402's
// PaymentDetails (and its challenges) remain what a client pays; amounts are null because the
// price depends on the organization (its tier, balance and state), never on the operation alone.
import type { Config } from '../config.ts';
import { chainOf, NETWORKS } from '../modules/billing/networks.ts';

type Rail = 'x402' | 'mpp';

interface PaidOperation {
  /** Why the operation can ask for payment. */
  description: string;
  /** The rails of a pay route (it takes only its own); an action takes every configured rail. */
  rails?: Rail[];
}

const SEND =
  'A send the prepaid balance cannot cover (intent top_up), or any while the organization is suspended (reinstate): 402 with the PaymentDetails; pay, then repeat the request with the same Idempotency-Key.';

/** The operations that can answer 402 `payment_required`, by operationId. */
export const PAID_OPERATIONS: Record<string, PaidOperation> = {
  createCell: {
    description:
      "The first cell without a paid tier (intent setup), or a cell past the tier's included ones (create_cell): 402 with the PaymentDetails; pay, then create again.",
  },
  sendMessage: { description: SEND },
  replyToMessage: { description: SEND },
  sendCellDraft: { description: SEND },
  sendPodDraft: { description: SEND },
  startPodCycle: {
    description:
      "A cycle job's sends the prepaid balance cannot cover (top_up), or any while suspended (reinstate): 402 with the PaymentDetails.",
  },
  payWithX402: {
    description:
      'Pays an intent (setup, renewal, top_up, reinstate, create_cell) over x402: 402 with PAYMENT-REQUIRED, then the retry with PAYMENT-SIGNATURE.',
    rails: ['x402'],
  },
  payWithMpp: {
    description:
      'Pays an intent (setup, renewal, top_up, reinstate, create_cell) over MPP: 402 with a WWW-Authenticate: Payment challenge, then the retry with Authorization: Payment.',
    rails: ['mpp'],
  },
};

export const isPaidOperation = (operationId: unknown): boolean =>
  typeof operationId === 'string' && Object.hasOwn(PAID_OPERATIONS, operationId);

type Offer = Record<string, string | number | null>;

/** One offer per configured crypto rail: each MPP method, each x402 network. */
function offersOf(config: Config, rails: Rail[], description: string): Offer[] {
  const offers: Offer[] = [];
  const tempo = config.mpp?.methods.tempo;
  if (rails.includes('mpp') && tempo)
    offers.push({
      amount: null,
      currency: tempo.currency,
      description,
      intent: 'charge',
      method: 'tempo',
      chain_id: tempo.chainId,
    });
  if (rails.includes('x402')) {
    for (const network of NETWORKS) {
      if (!(network === 'base' ? config.x402BasePayTo : config.x402SolanaPayTo)) continue;
      const chain = chainOf(network, config.x402Testnet);
      offers.push({
        amount: null,
        currency: chain.token,
        description,
        intent: 'exact',
        method: 'x402',
        network: chain.caip2,
      });
    }
  }
  return offers;
}

/** The `x-payment-info` of a paid operation; undefined for others and when billing is off (nothing is ever charged). */
export function paymentInfo(config: Config, operationId: unknown): Record<string, unknown> | undefined {
  if (!config.billing || !isPaidOperation(operationId)) return undefined;
  const paid = PAID_OPERATIONS[operationId as string];
  const offers = offersOf(config, paid.rails ?? ['mpp', 'x402'], paid.description);
  if (offers.length === 0 && paid.rails) return undefined; // a pay route of a rail not configured here
  // Without a crypto rail an action's 402 is paid by card (its checkout_url): paid, in USD, no method.
  return offers.length > 0
    ? { offers }
    : { amount: null, currency: 'USD', description: paid.description, intent: 'charge' };
}

/** The document's `x-service-info`. */
export const serviceInfo = (config: Config) => ({
  categories: ['messaging', 'sms', 'telephony', 'agents'],
  docs: { apiReference: config.docsUrl, homepage: config.baseUrl },
});
