import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { ConfigError, loadConfig } from '../../config.ts';
import { signStripe, STRIPE_TEST_ENV, StripeDouble, type DoubleSession } from '../../../test/support/stripe-double.ts';
import { STRIPE_TOLERANCE_S } from './stripe.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

const JSON_TYPE = { 'content-type': 'application/json' };
const webhook = (t: TestApp, payload: string, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/v1/billing/stripe/webhook', headers: { ...JSON_TYPE, ...headers }, payload });

describe('Stripe webhook with bad or unexpected deliveries', () => {
  const stripe = new StripeDouble();
  let t: TestApp;
  let org: Org;
  let session: DoubleSession;
  let paymentId = '';
  before(async () => {
    await stripe.start();
    t = await startApp({ env: stripe.env });
    org = await verifiedOrganization(t);
    const started = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/checkout',
      headers: org.headers,
      payload: { intent: 'top_up', amount_usd: '20.00' },
    });
    paymentId = started.json().payment_id;
    session = stripe.sessions.find((s) => s.client_reference_id === paymentId) as DoubleSession;
  });
  after(async () => {
    await t.close();
    await stripe.close();
  });

  const seconds = () => Math.floor(t.clock.now().getTime() / 1000);
  const paid = (id?: string, change: Partial<DoubleSession> = {}) =>
    stripe.event('checkout.session.completed', session, { status: 'complete', payment_status: 'paid', ...change }, id);
  /** Nothing was credited and no event was kept. */
  const unchanged = async () => {
    const row = await t.database.db
      .selectFrom('payments')
      .select('status')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'pending');
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(ledger.length, 0);
  };
  const kept = async () => (await t.database.db.selectFrom('stripe_events').select('id').execute()).length;

  it('answers 400 for a signature made with another secret, and changes nothing', async () => {
    const payload = paid('evt_forged');
    const body = expectProblem(
      await webhook(t, payload, { 'stripe-signature': signStripe(payload, seconds(), 'whsec_SomebodyElse0123456789') }),
      400,
      'invalid_request',
    );
    assert.equal(body.errors?.[0]?.field, 'stripe-signature');
    await unchanged();
    assert.equal(await kept(), 0);
  });

  it('answers 400 for a body changed after signing', async () => {
    const payload = paid('evt_tampered');
    const signature = signStripe(payload, seconds());
    expectProblem(
      await webhook(t, payload.replace('"amount_total":2000', '"amount_total":2001'), {
        'stripe-signature': signature,
      }),
      400,
      'invalid_request',
    );
    await unchanged();
  });

  it('answers 400 naming the header when Stripe-Signature is missing or malformed', async () => {
    const missing = expectProblem(await webhook(t, paid('evt_unsigned'), {}), 400, 'invalid_request');
    assert.equal(missing.errors?.[0]?.field, 'stripe-signature');
    expectProblem(
      await webhook(t, paid('evt_malformed'), { 'stripe-signature': 'v1=deadbeef' }),
      400,
      'invalid_request',
    );
    await unchanged();
  });

  it('answers 400 for a signature older than the tolerance by the app clock', async () => {
    const payload = paid('evt_stale');
    const signature = signStripe(payload, seconds());
    t.clock.advance((STRIPE_TOLERANCE_S + 1) * 1000);
    const body = expectProblem(await webhook(t, payload, { 'stripe-signature': signature }), 400, 'invalid_request');
    assert.match(body.detail, /tolerance/);
    await unchanged();
  });

  it('answers 415 for a body that is not JSON', async () => {
    const payload = 'id=evt_form';
    expectProblem(
      await webhook(t, payload, {
        'content-type': 'application/x-www-form-urlencoded',
        'stripe-signature': signStripe(payload, seconds()),
      }),
      415,
      'unsupported_media_type',
    );
  });

  it('acknowledges a signed event about an unknown payment without crediting anything', async () => {
    const payload = stripe.event(
      'checkout.session.completed',
      { ...session, client_reference_id: 'pay_01unknown', metadata: { payment_id: 'pay_01unknown' } },
      { payment_status: 'paid' },
      'evt_unknown',
    );
    const response = await webhook(t, payload, { 'stripe-signature': signStripe(payload, seconds()) });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().outcome, 'unknown_payment');
    await unchanged();
  });

  it('credits nothing when the paid amount or the organization differs from the payment', async () => {
    for (const [id, change] of [
      ['evt_amount', { amount_total: 500 }],
      ['evt_org', { metadata: { ...session.metadata, organization_id: 'org_01other' } }],
      ['evt_currency', { currency: 'eur' }],
    ] as const) {
      const payload = paid(id, change);
      const response = await webhook(t, payload, { 'stripe-signature': signStripe(payload, seconds()) });
      assert.equal(response.json().outcome, 'mismatch', id);
    }
    await unchanged();
  });
});

describe('Stripe checkout when Stripe fails', () => {
  const stripe = new StripeDouble();
  let t: TestApp;
  let org: Org;
  before(async () => {
    await stripe.start();
    t = await startApp({ env: stripe.env });
    org = await verifiedOrganization(t);
  });
  after(async () => {
    await t.close();
    await stripe.close();
  });

  it('answers 503 unavailable with Retry-After, and the payment is never credited', async () => {
    stripe.mode = 'down';
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/checkout',
      headers: org.headers,
      payload: { intent: 'setup' },
    });
    expectProblem(response, 503, 'unavailable');
    assert.equal(response.headers['retry-after'], '5');
    const rows = await t.database.db.selectFrom('payments').select(['status', 'external_id']).execute();
    assert.deepEqual(rows, [{ status: 'pending', external_id: null }]);
    stripe.mode = 'ok';
  });
});

describe('Stripe routes with billing off or Stripe not configured', () => {
  it('answers 409 billing_disabled to the checkout and the webhook when billing is off', async () => {
    const stripe = await new StripeDouble().start();
    const t = await startApp({ env: { ...stripe.env, CELLGATE_BILLING: 'off' } });
    try {
      const org = await verifiedOrganization(t);
      expectProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v1/billing/checkout',
          headers: org.headers,
          payload: { intent: 'setup' },
        }),
        409,
        'billing_disabled',
      );
      const payload = JSON.stringify({
        id: 'evt_off',
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: {} },
      });
      expectProblem(
        await webhook(t, payload, {
          'stripe-signature': signStripe(payload, Math.floor(t.clock.now().getTime() / 1000)),
        }),
        409,
        'billing_disabled',
      );
      assert.equal(stripe.requests.length, 0);
    } finally {
      await t.close();
      await stripe.close();
    }
  });

  it('answers 404 not_found to the webhook when Stripe is not configured', async () => {
    const t = await startApp();
    try {
      const payload = JSON.stringify({
        id: 'evt_none',
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: {} },
      });
      expectProblem(
        await webhook(t, payload, {
          'stripe-signature': signStripe(payload, Math.floor(t.clock.now().getTime() / 1000)),
        }),
        404,
        'not_found',
      );
    } finally {
      await t.close();
    }
  });
});

describe('Stripe configuration', () => {
  const base = { CELLGATE_BASE_URL: 'http://cellgate.test' };
  const refuses = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => loadConfig({ ...base, ...env }),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
    );

  it('stops with one line when only one of the two secrets is set', () => {
    refuses(
      { CELLGATE_STRIPE_SECRET_KEY: STRIPE_TEST_ENV.CELLGATE_STRIPE_SECRET_KEY },
      /^CELLGATE_STRIPE_WEBHOOK_SECRET must be set with CELLGATE_STRIPE_SECRET_KEY/,
    );
    refuses(
      { CELLGATE_STRIPE_WEBHOOK_SECRET: STRIPE_TEST_ENV.CELLGATE_STRIPE_WEBHOOK_SECRET },
      /^CELLGATE_STRIPE_SECRET_KEY must be set with CELLGATE_STRIPE_WEBHOOK_SECRET/,
    );
  });

  it('stops on a malformed key or secret without echoing it, and on an API base without Stripe', () => {
    refuses(
      { ...STRIPE_TEST_ENV, CELLGATE_STRIPE_SECRET_KEY: 'pk_test_publishable123' },
      /^CELLGATE_STRIPE_SECRET_KEY must be a Stripe secret key .*<redacted>/,
    );
    refuses(
      { ...STRIPE_TEST_ENV, CELLGATE_STRIPE_WEBHOOK_SECRET: 'secret' },
      /^CELLGATE_STRIPE_WEBHOOK_SECRET must be .*<redacted>/,
    );
    refuses(
      { ...STRIPE_TEST_ENV, CELLGATE_STRIPE_API_BASE: 'ftp://stripe.test' },
      /^CELLGATE_STRIPE_API_BASE must be a URL/,
    );
    refuses({ CELLGATE_STRIPE_API_BASE: 'http://127.0.0.1:12111' }, /^CELLGATE_STRIPE_API_BASE must be unset without/);
  });

  it('reads both secrets and the API base', () => {
    assert.deepEqual(
      loadConfig({ ...base, ...STRIPE_TEST_ENV, CELLGATE_STRIPE_API_BASE: 'http://127.0.0.1:12111/' }).stripe,
      {
        secretKey: STRIPE_TEST_ENV.CELLGATE_STRIPE_SECRET_KEY,
        webhookSecret: STRIPE_TEST_ENV.CELLGATE_STRIPE_WEBHOOK_SECRET,
        apiBase: 'http://127.0.0.1:12111',
      },
    );
    assert.equal(loadConfig(base).stripe, null);
  });
});
