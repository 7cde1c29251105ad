import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifiedOrganization, startApp, useApp } from '../../../test/harness.ts';
import { eventsOf } from '../../../test/support/cells.ts';
import { CHECKOUT_TTL_MS } from './checkout.ts';
import { addMonths } from './service.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

/** The path and query of a checkout URL, for app.inject. */
const pathOf = (url: string) => url.replace('http://cellgate.test', '');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('card checkout with the local processor', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const start = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers: org.headers, payload });
  const status = async () =>
    (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();

  it('answers 201 with the payment id, checkout URL and expiry', async () => {
    const response = await start({ intent: 'setup' });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.match(body.payment_id, /^pay_/);
    assert.match(
      body.checkout_url,
      new RegExp(`^http://cellgate\\.test/v1/billing/checkout/${body.payment_id}\\?token=[A-Za-z0-9]{32}$`),
    );
    assert.equal(body.expires_at, new Date(t.clock.now().getTime() + CHECKOUT_TTL_MS).toISOString());
    assert.equal(body.amount_usd, '20.00');
    assert.equal(body.tier, 'starter');
  });

  it('shows a page with a Pay form; paying a setup activates the tier for a month, once however often the form is posted', async () => {
    const { checkout_url: url, payment_id: paymentId } = (await start({ intent: 'setup', tier: 'pro' })).json();
    const page = await t.app.inject({ method: 'GET', url: pathOf(url) });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<form method="post"/);
    assert.match(page.body, /\$100\.00/);
    const paid = await t.app.inject({ method: 'POST', url: pathOf(url), headers: FORM, payload: '' });
    assert.equal(paid.statusCode, 200);
    assert.match(paid.body, /paid/);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: pathOf(url), headers: FORM, payload: '' })).statusCode,
      200,
    );
    const body = await status();
    assert.equal(body.state, 'active');
    assert.equal(body.tier, 'pro');
    assert.equal(body.current_period_end, addMonths(t.clock.now(), 1).toISOString());
    assert.equal(body.prepaid_balance_usd, 0);
    const payments = await t.database.db
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micros', 'reference'])
      .where('organization_id', '=', org.organizationId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      payments.map((p) => [p.kind, Number(p.amount_micros), p.reference]),
      [
        ['payment', 100_000_000, `card_processor:${paymentId}`],
        ['setup', -100_000_000, `setup:${paymentId}`],
      ],
    );
    const succeeded = await eventsOf(t, 'billing.payment_succeeded');
    assert.equal(succeeded.length, 1);
    assert.deepEqual(succeeded[0].data, {
      payment_id: paymentId,
      organization_id: org.organizationId,
      rail: 'card_processor',
      intent: 'setup',
      tier: 'pro',
      cell_id: null,
      amount_usd: '100.00',
    });
    assert.deepEqual(
      (await eventsOf(t, 'billing.status_changed')).map((e) => e.data.state),
      ['active'],
    );
  });

  it('credits a top_up to the prepaid balance', async () => {
    const { checkout_url: url } = (await start({ intent: 'top_up', amount_usd: '25.00' })).json();
    await t.app.inject({ method: 'POST', url: pathOf(url), headers: FORM, payload: '' });
    assert.equal((await status()).prepaid_balance_usd, 25);
    const { checkout_url: again } = (await start({ intent: 'top_up', amount_usd: 12.5 })).json();
    await t.app.inject({ method: 'POST', url: pathOf(again), headers: FORM, payload: '' });
    assert.equal((await status()).prepaid_balance_usd, 37.5);
  });

  it('extends a paid period with a renewal', async () => {
    const before = (await status()).current_period_end;
    const { checkout_url: url, amount_usd: amount } = (await start({ intent: 'renewal' })).json();
    assert.equal(amount, '100.00');
    await t.app.inject({ method: 'POST', url: pathOf(url), headers: FORM, payload: '' });
    const body = await status();
    assert.equal(body.current_period_end, addMonths(new Date(before), 1).toISOString());
    assert.equal(body.prepaid_balance_usd, 37.5);
  });

  it('refuses an expired checkout with 409 and credits nothing', async () => {
    const { checkout_url: url } = (await start({ intent: 'top_up', amount_usd: '5' })).json();
    t.clock.advance(CHECKOUT_TTL_MS);
    assert.equal((await t.app.inject({ method: 'GET', url: pathOf(url) })).statusCode, 409);
    const response = await t.app.inject({ method: 'POST', url: pathOf(url), headers: FORM, payload: '' });
    assert.equal(response.statusCode, 409);
    assert.match(response.body, /expired/);
    assert.equal((await status()).prepaid_balance_usd, 37.5);
  });

  it('answers 404 for a wrong token or an unknown payment, and credits nothing', async () => {
    const { checkout_url: url, payment_id: paymentId } = (await start({ intent: 'top_up', amount_usd: '5' })).json();
    const wrong = pathOf(url).replace(/token=.*/, `token=${'x'.repeat(32)}`);
    assert.equal((await t.app.inject({ method: 'POST', url: wrong, headers: FORM, payload: '' })).statusCode, 404);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: pathOf(url).replace(paymentId, 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4') }))
        .statusCode,
      404,
    );
    assert.equal((await status()).prepaid_balance_usd, 37.5);
  });
});

describe('card checkout with billing off', () => {
  it('answers 409 billing_disabled', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off' } });
    try {
      const org = await verifiedOrganization(t);
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/checkout',
        headers: org.headers,
        payload: { intent: 'top_up', amount_usd: '10' },
      });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().code, 'billing_disabled');
    } finally {
      await t.close();
    }
  });
});
