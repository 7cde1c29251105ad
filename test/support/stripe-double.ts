// Test support (imported by stripe.*.test.ts only): a local HTTP double of the Stripe API's
// `POST /v1/checkout/sessions` (what the stripe package calls, pointed here with
// CELLGATE_STRIPE_API_BASE), recording each form-encoded request; and Stripe webhook events about
// its sessions, signed by the stripe package itself.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const STRIPE_TEST_ENV = {
  CELLGATE_STRIPE_SECRET_KEY: 'sk_test_CellgateDouble0123456789',
  CELLGATE_STRIPE_WEBHOOK_SECRET: 'whsec_CellgateDoubleSecret0123456789',
};

export interface SessionRequest {
  headers: IncomingHttpHeaders;
  /** The form fields as sent (bracketed names, e.g. line_items[0][price_data][unit_amount]). */
  form: Record<string, string>;
}

/** A Checkout Session as the double answers it (the fields Cellgate reads). */
export interface DoubleSession {
  id: string;
  object: 'checkout.session';
  url: string;
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  expires_at: number;
}

export class StripeDouble {
  readonly requests: SessionRequest[] = [];
  readonly sessions: DoubleSession[] = [];
  /** 'down' answers 500 (marked not to retry): Stripe is failing. */
  mode: 'ok' | 'down' = 'ok';
  private server: Server | null = null;
  private readonly byKey = new Map<string, DoubleSession>();
  private eventCount = 0;

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** The app's environment for Stripe pointed at this double. */
  get env(): Record<string, string> {
    return { ...STRIPE_TEST_ENV, CELLGATE_STRIPE_API_BASE: this.url };
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'stripe-should-retry': 'false' });
          res.end(JSON.stringify(body));
        };
        if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions')
          return answer(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
        if (this.mode === 'down')
          return answer(500, { error: { type: 'api_error', message: 'Something went wrong on Stripe' } });
        const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        this.requests.push({ headers: req.headers, form });
        const key = String(req.headers['idempotency-key'] ?? '');
        const known = key ? this.byKey.get(key) : undefined;
        if (known) return answer(200, known);
        const id = `cs_test_${String(this.sessions.length + 1).padStart(4, '0')}`;
        const metadata: Record<string, string> = {};
        for (const [name, value] of Object.entries(form)) {
          const match = /^metadata\[(.+)\]$/.exec(name);
          if (match) metadata[match[1]] = value;
        }
        const session: DoubleSession = {
          id,
          object: 'checkout.session',
          url: `https://checkout.stripe.test/c/pay/${id}`,
          mode: form.mode,
          status: 'open',
          payment_status: 'unpaid',
          amount_total:
            Number(form['line_items[0][price_data][unit_amount]']) * Number(form['line_items[0][quantity]'] ?? 1),
          currency: form['line_items[0][price_data][currency]'],
          client_reference_id: form.client_reference_id ?? null,
          metadata,
          expires_at: Number(form.expires_at),
        };
        this.sessions.push(session);
        if (key) this.byKey.set(key, session);
        return answer(200, session);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A Stripe event JSON about `session` (changed by `change`), as Stripe would POST it. */
  event(
    type: string,
    session: DoubleSession,
    change: Partial<DoubleSession> = {},
    id = `evt_test_${++this.eventCount}`,
  ): string {
    return JSON.stringify({
      id,
      object: 'event',
      api_version: '2025-01-01',
      created: session.expires_at - 1800,
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object: { ...session, ...change } },
    });
  }
}

/** The Stripe-Signature header of `payload`, signed by the stripe package at `timestamp` (seconds). */
export function signStripe(
  payload: string,
  timestamp: number,
  secret = STRIPE_TEST_ENV.CELLGATE_STRIPE_WEBHOOK_SECRET,
): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}
