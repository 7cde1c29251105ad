// The MPP rail's HTTP side that is always loaded: the credential header, the routes that take it
// in place of a key, and the port the routes call. The rail itself (mpp.ts, with mppx and viem)
// is loaded only when MPP is configured: those libraries weigh ~130 MB of memory.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.ts';
import { hookList } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import type { Intent } from './lifecycle.ts';
import { billingOff, type PaymentDetails } from './offers.ts';
import type { PaymentsTable } from './tables.ts';

/** How long a challenge (and its pending payment) stays open. */
export const MPP_CHALLENGE_SECONDS = 300;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes `Authorization: Payment <credential>` in place of the agent's key (MPP). */
    paymentCredential?: boolean;
  }
}

/** The MPP credential of a request: `Authorization: Payment ...`, or `Payment-Authorization` beside a key. */
export function paymentCredentialOf(request: FastifyRequest): string | null {
  for (const value of [request.headers.authorization, request.headers['payment-authorization']]) {
    if (typeof value === 'string' && /^Payment\s+\S/i.test(value)) return value;
  }
  return null;
}

/** What the MPP routes need from the rail (mpp.ts); `unavailableMpp` when it is not configured. */
export interface MppPort {
  discovery(): Record<string, unknown> | null;
  required(organizationId: string, details: PaymentDetails, detail: string): Promise<ApiError>;
  pay(
    header: string,
    body: { intent: Intent },
    agentOrganization?: string,
  ): Promise<{ payment: PaymentsTable; receipt: string }>;
}

const notOffered = () =>
  new ApiError('conflict', 'MPP is not offered on this deployment (CELLGATE_MPP_METHODS is not set).');

export function unavailableMpp(billingEnabled: () => boolean): MppPort {
  return {
    discovery: () => null,
    required: async () => notOffered(),
    pay: async () => {
      throw billingEnabled() ? notOffered() : billingOff();
    },
  };
}

/**
 * On routes whose config says `paymentCredential`, a request carrying `Authorization: Payment`
 * skips the agent's key check: the credential's challenge, HMAC-bound to the organization it was
 * issued to, stands for it. Registered after registerAuth, whose check is the route's first
 * onRequest hook.
 */
export function registerMpp(app: App): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.paymentCredential) return;
    const [check, ...rest] = hookList(route.onRequest);
    if (!check) return;
    const skipWhenPaying = async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
      const header = request.headers.authorization;
      if (typeof header === 'string' && /^Payment\s/i.test(header)) return;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hook's own signature
      return (check as any).call(this, request, reply);
    };
    route.onRequest = [skipWhenPaying, ...rest];
  });
}
