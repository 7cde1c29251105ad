import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { addMonths } from './service.ts';
import { signStripe, StripeDouble, type DoubleSession } from '../../../test/support/stripe-double.ts';
import { STRIPE_SESSION_TTL_S } from './stripe.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('card checkout through Stripe Checkout', () => {
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

  const start = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers: org.headers, payload });
  const status = async () =>
    (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
  const seconds = () => Math.floor(t.clock.now().getTime() / 1000);
  const deliver = (payload: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/billing/stripe/webhook',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signStripe(payload, seconds()),
      },
      payload,
    });
  const sessionOf = (paymentId: string) =>
    stripe.sessions.find((s) => s.client_reference_id === paymentId) as DoubleSession;
  const ledger = async () =>
    (
      await t.database.db
        .selectFrom('ledger_entries')
        .select(['kind', 'amount_micros', 'reference'])
        .where('organization_id', '=', org.organizationId)
        .orderBy('id')
        .execute()
    ).map((row) => [row.kind, Number(row.amount_micros), row.reference]);
  const payment = (id: string) =>
    t.database.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  let setupId = '';

  it('creates a Checkout Session for the priced intent and answers its url', async () => {
    const response = await start({ intent: 'setup', tier: 'pro' });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    setupId = body.payment_id;
    assert.match(setupId, /^pay_/);
    const session = sessionOf(setupId);
    assert.equal(body.checkout_url, session.url);
    assert.equal(body.amount_usd, '100.00');
    assert.equal(body.expires_at, new Date((seconds() + STRIPE_SESSION_TTL_S) * 1000).toISOString());
    const [request] = stripe.requests;
    assert.equal(request.headers.authorization, 'Bearer sk_test_CellgateDouble0123456789');
    assert.equal(request.headers['idempotency-key'], `checkout:${setupId}`);
    assert.deepEqual(
      { ...request.form, success_url: undefined, cancel_url: undefined },
      {
        mode: 'payment',
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'usd',
        'line_items[0][price_data][unit_amount]': '10000',
        'line_items[0][price_data][product_data][name]': 'Cellgate setup (pro)',
        client_reference_id: setupId,
        'metadata[payment_id]': setupId,
        'metadata[organization_id]': org.organizationId,
        'metadata[intent]': 'setup',
        'payment_intent_data[metadata][payment_id]': setupId,
        'payment_intent_data[metadata][organization_id]': org.organizationId,
        'payment_intent_data[metadata][intent]': 'setup',
        expires_at: String(seconds() + STRIPE_SESSION_TTL_S),
        success_url: undefined,
        cancel_url: undefined,
      },
    );
    assert.equal(
      request.form.success_url,
      `http://cellgate.test/console/billing?checkout=succeeded&payment_id=${setupId}`,
    );
    assert.equal(
      request.form.cancel_url,
      `http://cellgate.test/console/billing?checkout=canceled&payment_id=${setupId}`,
    );
    const row = await payment(setupId);
    assert.deepEqual(
      [row.rail, row.processor, row.status, row.external_id, row.external_url],
      ['card_processor', 'stripe', 'pending', session.id, session.url],
    );
    assert.equal((await status()).state, 'inactive');
  });

  it('credits a paid checkout.session.completed: the tier is active, the ledger has the payment, billing.payment_succeeded is emitted', async () => {
    const response = await deliver(
      stripe.event(
        'checkout.session.completed',
        sessionOf(setupId),
        { status: 'complete', payment_status: 'paid' },
        'evt_setup_completed',
      ),
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { received: true, event_id: 'evt_setup_completed', outcome: 'credited' });
    const body = await status();
    assert.equal(body.state, 'active');
    assert.equal(body.tier, 'pro');
    assert.equal(body.current_period_end, addMonths(t.clock.now(), 1).toISOString());
    assert.deepEqual(await ledger(), [
      ['payment', 100_000_000, `card_processor:${setupId}`],
      ['setup', -100_000_000, `setup:${setupId}`],
    ]);
    const succeeded = await eventsOf(t, 'billing.payment_succeeded');
    assert.equal(succeeded.length, 1);
    assert.deepEqual(succeeded[0].data, {
      payment_id: setupId,
      organization_id: org.organizationId,
      rail: 'card_processor',
      intent: 'setup',
      tier: 'pro',
      cell_id: null,
      amount_usd: '100.00',
    });
    assert.equal((await payment(setupId)).status, 'succeeded');
  });

  it('answers a replayed event 200 and changes nothing', async () => {
    const before = await ledger();
    const response = await deliver(
      stripe.event(
        'checkout.session.completed',
        sessionOf(setupId),
        { status: 'complete', payment_status: 'paid' },
        'evt_setup_completed',
      ),
    );
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().outcome, 'duplicate');
    assert.deepEqual(await ledger(), before);
    assert.equal((await eventsOf(t, 'billing.payment_succeeded')).length, 1);
    assert.equal((await eventsOf(t, 'billing.status_changed')).length, 1);
  });

  it('credits once when two different events report the same paid session', async () => {
    const { payment_id: id } = (await start({ intent: 'top_up', amount_usd: '25.00' })).json();
    const paid = { status: 'complete' as const, payment_status: 'paid' as const };
    assert.equal(
      (await deliver(stripe.event('checkout.session.completed', sessionOf(id), paid))).json().outcome,
      'credited',
    );
    assert.equal(
      (await deliver(stripe.event('checkout.session.async_payment_succeeded', sessionOf(id), paid))).json().outcome,
      'already_paid',
    );
    assert.equal((await status()).prepaid_balance_usd, 25);
    assert.equal((await ledger()).filter(([, , reference]) => reference === `card_processor:${id}`).length, 1);
  });

  it('leaves a paid payment paid when checkout.session.expired arrives after the completion', async () => {
    const { payment_id: id } = (await start({ intent: 'top_up', amount_usd: '10.00' })).json();
    await deliver(
      stripe.event('checkout.session.completed', sessionOf(id), { status: 'complete', payment_status: 'paid' }),
    );
    const response = await deliver(stripe.event('checkout.session.expired', sessionOf(id), { status: 'expired' }));
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().outcome, 'ignored');
    assert.equal((await payment(id)).status, 'succeeded');
    assert.equal((await status()).prepaid_balance_usd, 35);
  });

  it('credits nothing for a completed session not paid yet (delayed method), then credits its async_payment_succeeded', async () => {
    const { payment_id: id } = (await start({ intent: 'top_up', amount_usd: '5.00' })).json();
    const unpaid = await deliver(
      stripe.event('checkout.session.completed', sessionOf(id), { status: 'complete', payment_status: 'unpaid' }),
    );
    assert.equal(unpaid.json().outcome, 'unpaid');
    assert.equal((await payment(id)).status, 'pending');
    assert.equal((await status()).prepaid_balance_usd, 35);
    const paid = await deliver(
      stripe.event('checkout.session.async_payment_succeeded', sessionOf(id), {
        status: 'complete',
        payment_status: 'paid',
      }),
    );
    assert.equal(paid.json().outcome, 'credited');
    assert.equal((await status()).prepaid_balance_usd, 40);
  });

  it('credits nothing for an expired session, and ignores other event types', async () => {
    const { payment_id: id } = (await start({ intent: 'top_up', amount_usd: '5.00' })).json();
    assert.equal(
      (await deliver(stripe.event('checkout.session.expired', sessionOf(id), { status: 'expired' }))).json().outcome,
      'ignored',
    );
    assert.equal((await deliver(stripe.event('payment_intent.succeeded', sessionOf(id)))).json().outcome, 'ignored');
    assert.equal((await payment(id)).status, 'pending');
    assert.equal((await status()).prepaid_balance_usd, 40);
    const kept = await t.database.db
      .selectFrom('stripe_events')
      .select(['type', 'outcome'])
      .orderBy('received_at')
      .execute();
    assert.ok(kept.some((e) => e.type === 'payment_intent.succeeded' && e.outcome === 'ignored'));
  });

  it("gives a 402 a checkout link that opens the Stripe session on first use, never the local page's Pay button", async () => {
    const fresh = await verifiedOrganization(t);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: fresh.headers,
      payload: { display_name: 'Line' },
    });
    assert.equal(refused.statusCode, 402);
    const link = new URL(refused.json().payment.checkout_url);
    assert.equal(link.pathname.startsWith('/v1/billing/stripe/checkout/pay_'), true, link.href);
    const paymentId = link.pathname.split('/').pop() as string;
    const requests = stripe.requests.length;
    const first = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(first.statusCode, 303);
    assert.equal(first.headers.location, sessionOf(paymentId).url);
    assert.equal(sessionOf(paymentId).amount_total, 2000);
    const second = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(second.headers.location, first.headers.location);
    assert.equal(stripe.requests.length, requests + 1);
    // The local processor's page does not serve a Stripe payment, so it cannot be "paid" there.
    const local = `/v1/billing/checkout/${paymentId}${link.search}`;
    assert.equal((await t.app.inject({ method: 'GET', url: local })).statusCode, 404);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: local,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: '',
        })
      ).statusCode,
      404,
    );
    assert.equal((await payment(paymentId)).status, 'pending');
    // Paid on Stripe, the link says so.
    await deliver(
      stripe.event('checkout.session.completed', sessionOf(paymentId), { status: 'complete', payment_status: 'paid' }),
    );
    const done = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /<h1>Paid: Starter plan setup<\/h1>/);
    assert.match(done.body, /<link rel="stylesheet" href="\/console\/console\.css">/);
    assert.match(done.body, /<a class="button secondary" href="\/console\/billing">Back to Billing<\/a>/);
    assert.equal(done.headers['referrer-policy'], 'no-referrer', 'the URL carries its token');
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/v1/cells',
          headers: fresh.headers,
          payload: { display_name: 'Line' },
        })
      ).statusCode,
      201,
    );
  });

  it('documents the webhook in the OpenAPI document as a public Billing operation', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/v1/billing/stripe/webhook'].post;
    assert.equal(operation.operationId, 'receiveStripeWebhook');
    assert.deepEqual(operation.tags, ['Billing']);
    assert.deepEqual(operation.security, []);
    assert.ok(operation.responses['200'].description);
    assert.match(operation.responses['400'].description, /invalid_request/);
    assert.match(operation.responses['409'].description, /billing_disabled/);
    assert.ok(
      operation.parameters.some(
        (p: { name: string; in: string }) => p.name === 'stripe-signature' && p.in === 'header',
      ),
    );
    assert.equal(document.paths['/v1/billing/stripe/checkout/{payment_id}'], undefined);
  });
});
