// Every billing 402 (contract §2, §7) is something a client can act on at once: its PaymentDetails
// gain a `checkout_url` for the card rail, and, when x402 is configured, the response carries the
// x402 v2 `PAYMENT-REQUIRED` header built from the same quotes, so an x402 client pays and retries
// the original request unchanged.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import type { CheckoutService } from './checkout.ts';
import { parseUsd } from './money.ts';
import type { PaymentDetails } from './service.ts';
import { encodeHeader, x402PaymentRequired, type X402Settlement } from './x402.ts';

/** Registers the completion of every 402 payment_required of an agent (before the routes). */
export function registerPaymentRequired(app: App, deps: { checkout: CheckoutService; x402: X402Settlement; baseUrl: string; testnet: boolean; enabled: () => boolean }): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 402 || typeof payload !== 'string' || !request.agent) return payload;
    const problem = JSON.parse(payload) as { code?: string; detail?: string; payment?: PaymentDetails };
    const details = problem.payment;
    if (problem.code !== 'payment_required' || !details || !deps.enabled()) return payload;
    const amount = parseUsd(details.amount_usd);
    if (amount !== null && details.rails.includes('card_processor') && !details.checkout_url) {
      const checkout = await deps.checkout.open(request.agent.organizationId, { intent: details.intent, micros: amount, tier: details.tier, cellId: details.cell_id });
      details.checkout_url = checkout.checkout_url;
    }
    const x402 = x402PaymentRequired(details, `${deps.baseUrl}${request.url}`, deps.testnet, problem.detail ?? details.intent);
    if (x402) {
      await deps.x402.open(request.agent.organizationId, details);
      reply.header('payment-required', encodeHeader(x402));
    }
    return JSON.stringify(problem);
  });
}
