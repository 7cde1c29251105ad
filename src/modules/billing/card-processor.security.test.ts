// The card rail's processor (contract §7, §9): the built-in local card page credits money without
// charging a card, so a deployment on a public base URL without Stripe offers no card rail at all
// unless the operator asks for the local page by name (CELLGATE_CARD_PROCESSOR=local).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';
import { expectProblem, startApp, verifiedOrganization, useApp } from '../../../test/harness.ts';
import { BASE_PAY_TO, payByCard } from '../../../test/support/billing.ts';
import { STRIPE_TEST_ENV } from '../../../test/support/stripe-double.ts';
import { pendingPayment } from './payments.ts';

const PUBLIC = { CELLGATE_BASE_URL: 'https://cellgate.example.com' };
/** The harness picks `local` for its tests; '' gives the deployment's own default back. */
const DEFAULT_PROCESSOR = { CELLGATE_CARD_PROCESSOR: '' };

describe('card processor on a public base URL without Stripe', () => {
  const t = useApp({ env: { ...PUBLIC, ...DEFAULT_PROCESSOR, CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  let org: Awaited<ReturnType<typeof verifiedOrganization>>;

  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('is off by default', () => {
    assert.equal(t.config.cardProcessor, 'off');
  });

  it('leaves card_processor out of payment-options, rails and all', async () => {
    const options = (
      await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })
    ).json();
    assert.deepEqual(options.rails, ['x402']);
    assert.equal('card_processor' in options, false);
  });

  it('refuses POST /v1/billing/checkout with 409 conflict saying there is no card processor, and opens no payment', async () => {
    const body = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/checkout',
        headers: org.headers,
        payload: { intent: 'top_up', amount_usd: '999999.99' },
      }),
      409,
      'conflict',
    );
    assert.match(body.detail, /No card processor.*CELLGATE_CARD_PROCESSOR is off/);
    const payments = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .where('rail', '=', 'card_processor')
      .execute();
    assert.deepEqual(payments, []);
  });

  it('answers a 402 without checkout_url and without card_processor among its rails (x402 still there)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'A' },
    });
    const body = expectProblem(response, 402, 'payment_required');
    assert.deepEqual(body.payment.rails, ['x402']);
    assert.equal('checkout_url' in body.payment, false);
    assert.ok(response.headers['payment-required'], 'the x402 PAYMENT-REQUIRED header');
  });

  it('answers 404 on the local checkout page, GET and POST, even for a pending local payment, and credits nothing', async () => {
    // A local payment left from when the page was on (written directly: nothing opens one now).
    const { payment, token } = pendingPayment(
      t.clock,
      org.organizationId,
      'card_processor',
      { intent: 'top_up', micros: 500_000_000 },
      60_000,
    );
    await t.database.db
      .insertInto('payments')
      .values({ ...payment, processor: 'local' })
      .execute();
    const url = `/v1/billing/checkout/${payment.id}?token=${token}`;
    assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 404);
    const posted = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(posted.statusCode, 404);
    const status = (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
    assert.equal(status.prepaid_balance_usd, 0);
  });
});

describe('card processor named local on a public base URL', () => {
  it('offers the local card page, which credits a payment once', async () => {
    const t = await startApp({ env: { ...PUBLIC, CELLGATE_CARD_PROCESSOR: 'local' } });
    try {
      const org = await verifiedOrganization(t);
      const options = (
        await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })
      ).json();
      assert.deepEqual(options.rails, ['card_processor']);
      assert.equal(options.card_processor.provider, 'local');
      const started = await payByCard(t, org.headers, { intent: 'top_up', amount_usd: '25.00' });
      assert.match(started.checkout_url, /^https:\/\/cellgate\.example\.com\/v1\/billing\/checkout\/pay_/);
      const status = (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
      assert.equal(status.prepaid_balance_usd, 25);
    } finally {
      await t.close();
    }
  });
});

describe('CELLGATE_CARD_PROCESSOR at start-up', () => {
  const processor = (env: Record<string, string>) =>
    loadConfig({ CELLGATE_DATABASE_URL: 'sqlite::memory:', ...env }).cardProcessor;
  const refuses = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => loadConfig({ CELLGATE_DATABASE_URL: 'sqlite::memory:', ...env }),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message) && !error.message.includes('\n'),
    );

  it('defaults to local only on a loopback base URL', () => {
    for (const base of [
      'http://127.0.0.1:8080',
      'http://127.9.9.9',
      'http://localhost:3000',
      'http://LOCALHOST',
      'http://cellgate.localhost',
      'http://[::1]:8080',
    ]) {
      assert.equal(processor({ CELLGATE_BASE_URL: base }), 'local', base);
    }
    // Without a base URL it is the listen address: 127.0.0.1 by default.
    assert.equal(processor({}), 'local');
    for (const base of [
      'https://cellgate.example.com',
      'http://10.0.0.5:8080',
      'http://0.0.0.0:8080',
      'http://[::]:8080',
      'http://localhost.example.com',
      'http://128.0.0.1',
    ]) {
      assert.equal(processor({ CELLGATE_BASE_URL: base }), 'off', base);
    }
    assert.equal(processor({ CELLGATE_HOST: '0.0.0.0' }), 'off');
  });

  it('defaults to stripe when its keys are set, wherever the base URL', () => {
    assert.equal(processor({ ...STRIPE_TEST_ENV, ...PUBLIC }), 'stripe');
    assert.equal(processor({ ...STRIPE_TEST_ENV }), 'stripe');
  });

  it('takes an explicit stripe, local or off', () => {
    assert.equal(processor({ ...PUBLIC, CELLGATE_CARD_PROCESSOR: 'local' }), 'local');
    assert.equal(processor({ CELLGATE_CARD_PROCESSOR: 'off' }), 'off');
    assert.equal(processor({ ...STRIPE_TEST_ENV, CELLGATE_CARD_PROCESSOR: 'off' }), 'off');
    assert.equal(processor({ ...STRIPE_TEST_ENV, ...PUBLIC, CELLGATE_CARD_PROCESSOR: 'stripe' }), 'stripe');
  });

  it('stops with one line on an unknown value, and on stripe without its keys', () => {
    refuses(
      { CELLGATE_CARD_PROCESSOR: 'paypal' },
      /^CELLGATE_CARD_PROCESSOR must be stripe, local or off \(got "paypal"\)$/,
    );
    refuses({ CELLGATE_CARD_PROCESSOR: 'Local' }, /^CELLGATE_CARD_PROCESSOR must be stripe, local or off/);
    refuses(
      { CELLGATE_CARD_PROCESSOR: 'stripe' },
      /^CELLGATE_CARD_PROCESSOR must be local or off without CELLGATE_STRIPE_SECRET_KEY and CELLGATE_STRIPE_WEBHOOK_SECRET \(got "stripe"\)$/,
    );
  });
});

describe('the local checkout page', () => {
  it('cannot be framed, cached or leak its token in a referrer: on the page, after paying, and for an unknown link', async () => {
    const t = await startApp();
    try {
      const org = await verifiedOrganization(t);
      const started = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/checkout',
        headers: org.headers,
        payload: { intent: 'top_up', amount_usd: '5.00' },
      });
      const url = new URL(started.json().checkout_url);
      const page = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
      const paid = await t.app.inject({
        method: 'POST',
        url: url.pathname + url.search,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      const unknown = await t.app.inject({ method: 'GET', url: `${url.pathname}?token=wrong` });
      assert.deepEqual([page.statusCode, paid.statusCode, unknown.statusCode], [200, 200, 404]);
      for (const response of [page, paid, unknown]) {
        assert.match(String(response.headers['content-security-policy']), /(^|; )frame-ancestors 'none'(;|$)/);
        assert.match(String(response.headers['content-security-policy']), /(^|; )default-src 'none'(;|$)/);
        assert.equal(response.headers['x-frame-options'], 'DENY');
        assert.equal(response.headers['cache-control'], 'no-store');
        assert.equal(response.headers['referrer-policy'], 'no-referrer');
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
      }
      // The Pay form posts to the page itself, which the policy's form-action allows.
      assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
      assert.match(page.body, /<form method="post" action="\/v1\/billing\/checkout\/pay_/);
    } finally {
      await t.close();
    }
  });
});
