// A setup may carry a starting balance (contract §7, §10): `amount_usd` (at least min_amount_usd)
// is paid with the first period and kept on the prepaid balance — one payment before the first
// text. Every rail prices through the same quote: the card checkout, x402 and MPP requirements.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { BASE_PAY_TO, payByCard } from '../../../test/support/billing.ts';

describe('a setup with a starting balance', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });

  it('by card: the period is bought at its price and the rest is on the balance, in one payment', async () => {
    const org = await verifiedOrganization(t);
    const started = await payByCard(t, org.headers, { intent: 'setup', amount_usd: '30.00' });
    assert.match(started.payment_id, /^pay_/);
    const status = (await t.app.inject({ url: '/v1/billing/status', headers: org.headers })).json();
    assert.equal(status.state, 'active');
    assert.equal(status.tier, 'starter');
    assert.equal(status.prepaid_balance_usd, 30);
    // And the first text goes out without a second payment.
    const options = (await t.app.inject({ url: '/v1/billing/payment-options', headers: org.headers })).json();
    assert.equal(options.prepaid_balance_usd, 30);
  });

  it('prices the x402 and MPP requirements of a setup with its starting balance', async () => {
    const org = await verifiedOrganization(t);
    const quote = await t.app.inject({
      url: '/v1/billing/x402/requirements?intent=setup&tier=pro&amount_usd=25',
      headers: org.headers,
    });
    assert.equal(quote.statusCode, 200, quote.body);
    assert.equal(quote.json().amount_usd, '125.00');
    const pay = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/x402/pay',
      headers: org.headers,
      payload: { intent: 'setup', amount_usd: '10.00' },
    });
    assert.equal(pay.statusCode, 402);
    assert.equal(pay.json().payment.amount_usd, '30.00');
  });

  it('refuses a starting balance under min_amount_usd (400 naming amount_usd) and charges nothing', async () => {
    const org = await verifiedOrganization(t);
    const body = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/checkout',
        headers: org.headers,
        payload: { intent: 'setup', amount_usd: '4.99' },
      }),
      400,
      'invalid_request',
    );
    assert.equal(body.errors[0].field, 'amount_usd');
    assert.equal(body.errors[0].code, 'too_small');
    const status = (await t.app.inject({ url: '/v1/billing/status', headers: org.headers })).json();
    assert.equal(status.state, 'inactive');
  });
});
