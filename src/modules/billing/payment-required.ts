// Every billing 402 (contract §2, §7) is something a client can act on at once: its PaymentDetails
// gain a `checkout_url` for the card rail and, when x402 is configured, the x402 v2
// PaymentRequired built from the same quotes (an open quote of exactly that amount), so an x402
// client pays and retries the original request unchanged. REST carries it in the
// `PAYMENT-REQUIRED` header; MCP tool errors carry it in their structured content.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.ts';
import type { App } from '../../http/types.ts';
import type { CheckoutService } from './checkout.ts';
import { parseUsd } from './money.ts';
import type { PaymentDetails } from './offers.ts';
import { encodeHeader, x402PaymentRequired, type X402Settlement } from './x402.ts';

export class PaymentCompletion {
  private readonly deps: { checkout: CheckoutService; x402: X402Settlement; testnet: boolean; enabled: () => boolean };

  constructor(deps: PaymentCompletion['deps']) {
    this.deps = deps;
  }

  /** Opens the card checkout and the x402 quote of these details; the x402 PaymentRequired, if any. */
  async complete(organizationId: string, details: PaymentDetails, resourceUrl: string, description: string) {
    if (!this.deps.enabled()) return null;
    const amount = parseUsd(details.amount_usd);
    if (amount !== null && details.rails.includes('card_processor') && !details.checkout_url) {
      const checkout = await this.deps.checkout.open(organizationId, {
        intent: details.intent,
        micros: amount,
        tier: details.tier,
        cellId: details.cell_id,
      });
      details.checkout_url = checkout.checkout_url;
    }
    const x402 = x402PaymentRequired(details, resourceUrl, this.deps.testnet, description);
    if (x402) await this.deps.x402.open(organizationId, details);
    return x402;
  }

  /** The 402 of an action outside HTTP (an MCP tool), completed: `x402` carries the PaymentRequired. */
  async completeError(organizationId: string, error: ApiError, resourceUrl: string): Promise<ApiError> {
    const details = error.extensions?.payment as PaymentDetails | undefined;
    if (error.code !== 'payment_required' || !details) return error;
    const x402 = await this.complete(organizationId, details, resourceUrl, error.message);
    return new ApiError('payment_required', error.message, {
      extensions: { ...error.extensions, payment: details, ...(x402 ? { x402_payment_required: x402 } : {}) },
    });
  }
}

/** Registers the completion of every 402 payment_required of an agent (before the routes). */
export function registerPaymentRequired(app: App, completion: PaymentCompletion, baseUrl: string): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 402 || typeof payload !== 'string' || !request.agent) return payload;
    const problem = JSON.parse(payload) as { code?: string; detail?: string; payment?: PaymentDetails };
    const details = problem.payment;
    if (problem.code !== 'payment_required' || !details) return payload;
    const x402 = await completion.complete(
      request.agent.organizationId,
      details,
      `${baseUrl}${request.url}`,
      problem.detail ?? details.intent,
    );
    if (x402) reply.header('payment-required', encodeHeader(x402));
    return JSON.stringify(problem);
  });
}
