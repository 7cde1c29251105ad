// The x402 rail (v2, scheme `exact`): every billing 402 advertises its PaymentRequired in the
// `PAYMENT-REQUIRED` header and opens a quote (a pending x402 payment of exactly that amount). A
// retry carrying `PAYMENT-SIGNATURE` is verified and settled through the facilitator before the
// route runs: the quote's payment is credited once, its intent applied, and the original action
// then finds it paid; the answer carries `PAYMENT-RESPONSE`. A payload is credited once, ever
// (x402-keys.ts): presented again, to any quote, organization or route, it is a 402 with reason
// `replayed`, whatever the facilitator says. Built on @x402/core's facilitator client and header codecs.
import type * as X402Http from '@x402/core/http';
import type { FacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { transact } from '../../db/transaction.ts';
import { onFirstUse } from '../../lib/on-first-use.ts';
import { ApiError } from '../../lib/errors.ts';
import { hookList } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import { micros, parseUsd } from './money.ts';
import { chainOf, NETWORKS, type Network } from './networks.ts';
import { billingOff, type PaymentDetails } from './offers.ts';
import type { PaymentsTable } from './tables.ts';
import { paidOf, pendingPayment, pricedOf, unreadable, x402TopUp, type RailDeps } from './payments.ts';
import { settlementKeys } from './x402-keys.ts';

/** @x402/core's facilitator client and header codecs, loaded on the first x402 payment. */
const x402Http = onFirstUse<typeof X402Http>('@x402/core/http');

/** How long a signed x402 authorization may take to settle, and how long a quote stays open. */
export const X402_MAX_TIMEOUT_SECONDS = 300;

/** The x402 v2 PaymentRequired object for these details (null without an x402 quote). */
export function x402PaymentRequired(
  details: PaymentDetails,
  resourceUrl: string,
  testnet: boolean,
  description: string,
) {
  const amount = String(parseUsd(details.amount_usd));
  return {
    x402Version: 2,
    // Without a configured network there is nothing to accept: an x402 client says so, and the
    // problem's payment.checkout_url (the card) is the way to pay.
    error: details.x402 ? 'Payment required' : 'Payment required: x402 is not configured here',
    resource: { url: resourceUrl, description, mimeType: 'application/json' },
    accepts: (details.x402?.quotes ?? []).map((quote) => requirementsFor(quote.network, quote.pay_to, amount, testnet)),
  };
}

function requirementsFor(network: Network, payTo: string, amount: string, testnet: boolean): PaymentRequirements {
  const chain = chainOf(network, testnet);
  return {
    scheme: 'exact',
    network: chain.caip2 as PaymentRequirements['network'],
    amount,
    asset: chain.token,
    payTo,
    maxTimeoutSeconds: X402_MAX_TIMEOUT_SECONDS,
    extra: chain.eip712 ?? {},
  };
}

export const encodeHeader = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** The payment a request's PAYMENT-SIGNATURE settled (for routes that answer with it). */
const settledPayments = new WeakMap<FastifyRequest, ReturnType<typeof paidOf>>();
export const paidBy = (request: FastifyRequest) => settledPayments.get(request);

export class X402Settlement {
  private readonly deps: RailDeps & {
    enabled: boolean;
    testnet: boolean;
    facilitatorUrl: string | null;
    facilitatorTimeoutMs: number;
  };
  private readonly facilitator: FacilitatorClient | null;

  constructor(deps: X402Settlement['deps']) {
    this.deps = deps;
    this.facilitator = deps.facilitatorUrl
      ? new (x402Http().HTTPFacilitatorClient)({ url: deps.facilitatorUrl, timeoutMs: deps.facilitatorTimeoutMs })
      : null;
  }

  /** Opens the quote behind a 402's PAYMENT-REQUIRED: a pending x402 payment of its amount. */
  async open(organizationId: string, details: PaymentDetails): Promise<void> {
    await this.deps.repo.insertPayment(
      pendingPayment(this.deps.clock, organizationId, 'x402', pricedOf(details), X402_MAX_TIMEOUT_SECONDS * 1000)
        .payment,
    );
  }

  /**
   * A 402 naming why an x402 payment was refused, with what to pay (a fresh quote follows);
   * `code` is the machine reason (the body's `reason`: `replayed`, or the facilitator's).
   */
  private refused(detail: string, quote?: PaymentsTable, code?: string): ApiError {
    const message = `The x402 payment was refused: ${detail}`;
    const base = quote
      ? this.deps.offers.paymentRequiredFor(message, quote)
      : new ApiError('payment_required', message);
    return code
      ? new ApiError('payment_required', message, { extensions: { ...base.extensions, reason: code } })
      : base;
  }

  private replayed(quote?: PaymentsTable): ApiError {
    return this.refused(
      'replayed: this payment payload was already credited; sign a new payment for this quote.',
      quote,
      'replayed',
    );
  }

  /**
   * Verifies and settles the PAYMENT-SIGNATURE of `organizationId` against its open quote of the
   * same amount (our own requirements: payee, asset and network come from configuration, never
   * from the client), then credits it once and applies its intent. Throws a 402 with the reason
   * when anything fails; nothing is credited unless the facilitator settled.
   */
  async settle(organizationId: string, header: string): Promise<{ settled: SettleResponse; payment: PaymentsTable }> {
    if (!this.deps.enabled) throw billingOff();
    let payload: PaymentPayload;
    try {
      payload = x402Http().decodePaymentSignatureHeader(header);
    } catch {
      throw unreadable(
        'PAYMENT-SIGNATURE',
        'invalid_format',
        'PAYMENT-SIGNATURE must be a base64 JSON x402 v2 payment payload.',
        'PAYMENT-SIGNATURE is not a base64 JSON x402 payment payload.',
      );
    }
    const now = this.deps.clock.now().toISOString();
    // A refusal names what to pay: the organization's newest open quote.
    const newest = async () => this.deps.repo.openX402Payment(this.deps.repo.db, organizationId, now);
    const refuse = async (detail: string) => this.refused(detail, await newest());
    const accepted = payload?.accepted;
    if (payload?.x402Version !== 2 || typeof accepted !== 'object' || accepted === null)
      throw await refuse('only x402 version 2 payloads with `accepted` requirements are taken.');
    const network = NETWORKS.find((n) => chainOf(n, this.deps.testnet).caip2 === accepted.network);
    const payTo = network ? this.deps.offers.payToOf(network) : undefined;
    if (!network || !payTo) throw await refuse(`network ${String(accepted.network)} is not one this deployment takes.`);
    if (accepted.scheme !== 'exact') throw await refuse('only the exact scheme is taken.');
    // Checked before anything else is looked up or the facilitator sees it, and recorded with the credit: a payload pays once.
    const caip2 = chainOf(network, this.deps.testnet).caip2;
    const keys = settlementKeys(caip2, payload.payload);
    if (!keys)
      throw await refuse(
        'the payload names no transfer (an authorization with its payer and nonce, or a signed transaction).',
      );
    if (await this.deps.repo.x402Settled(caip2, keys)) throw this.replayed(await newest());
    const quote =
      typeof accepted.amount === 'string' && /^\d{1,15}$/.test(accepted.amount)
        ? await this.deps.repo.openX402Payment(this.deps.repo.db, organizationId, now, micros(accepted.amount))
        : undefined;
    if (!quote)
      throw await refuse(
        'no open quote of this organization has that amount; repeat the request for a fresh PAYMENT-REQUIRED.',
      );
    const requirements = requirementsFor(network, payTo, String(micros(quote.amount_micros)), this.deps.testnet);
    if (accepted.asset !== requirements.asset || accepted.payTo !== requirements.payTo)
      throw this.refused('the asset or the recipient is not ours.', quote);
    if (!this.facilitator)
      throw this.refused('x402 settlement is not configured on this deployment; pay by card (checkout_url).', quote);
    const verified = await this.call(
      () => (this.facilitator as FacilitatorClient).verify(payload, requirements),
      quote,
    );
    if (!verified.isValid)
      throw this.refused(verified.invalidReason ?? 'the facilitator found it invalid.', quote, verified.invalidReason);
    const settled = await this.call(() => (this.facilitator as FacilitatorClient).settle(payload, requirements), quote);
    if (!settled.success)
      throw this.refused(settled.errorReason ?? 'the facilitator could not settle it.', quote, settled.errorReason);
    const payment = await transact(this.deps.repo.db, async (tx) => {
      const at = this.deps.clock.now().toISOString();
      let paid: PaymentsTable = quote;
      if (!(await this.deps.repo.completePayment(tx, quote.id, at))) {
        // Another payload paid this quote meanwhile: what this one moved is kept, as a top-up.
        paid = {
          ...x402TopUp(this.deps.clock, organizationId, micros(quote.amount_micros)),
          status: 'succeeded',
          completed_at: at,
        };
        await this.deps.repo.insertPayment(paid, tx);
      }
      // The same payload settling twice at once: the unique key lets one credit through.
      if (!(await this.deps.repo.recordSettlement(tx, caip2, keys, { paymentId: paid.id, organizationId, at })))
        throw this.replayed(quote);
      await this.deps.crediting.applyPayment(tx, paid);
      return paid;
    });
    return { settled, payment };
  }

  /**
   * The x402 v2 MCP transport: the PaymentPayload of `_meta["x402/payment"]`, settled exactly as a
   * REST PAYMENT-SIGNATURE (the same checks, quote and once-only record), with what was paid.
   */
  async settlePayload(organizationId: string, payload: unknown) {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw unreadable(
        '_meta.x402/payment',
        'invalid_type',
        '_meta["x402/payment"] must be an x402 v2 PaymentPayload object.',
        '_meta["x402/payment"] is an x402 v2 PaymentPayload object.',
      );
    const { settled, payment } = await this.settle(organizationId, encodeHeader(payload));
    return {
      settled,
      paid: paidOf(payment),
    };
  }

  private async call<T>(work: () => Promise<T>, quote: PaymentsTable): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.refused(
        `the facilitator did not answer (${error instanceof Error ? error.message : String(error)}).`,
        quote,
      );
    }
  }
}

/**
 * On agent routes, a request carrying PAYMENT-SIGNATURE pays before its handler runs (after the
 * credential, rate limit and idempotency checks, so a replayed response is never paid twice);
 * every 402 of an agent opens an x402 quote and carries PAYMENT-REQUIRED.
 */
export function registerX402(app: App, settlement: X402Settlement): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== 'agent') return;
    const pay = async (request: FastifyRequest, reply: FastifyReply) => {
      const header = request.headers['payment-signature'];
      if (typeof header !== 'string' || reply.sent || !request.agent) return;
      const { settled, payment } = await settlement.settle(request.agent.organizationId, header);
      settledPayments.set(request, paidOf(payment));
      reply.header('payment-response', x402Http().encodePaymentResponseHeader(settled));
    };
    route.preHandler = [...hookList(route.preHandler), pay];
  });
}
