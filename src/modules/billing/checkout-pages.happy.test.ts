// The card checkout's pages as a person sees them: the console's stylesheet and shell, the
// payment in words (never `top_up: $25.00`), a Pay button naming the amount, and a way back to
// Billing in the console on every state (to pay, paid, expired, unknown). No script needed.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { CHECKOUT_TTL_MS } from './checkout.ts';
import { paymentWords } from './checkout-pages.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

const pathOf = (url: string) => url.replace('http://cellgate.test', '');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const BACK =
  /<a class="button secondary" href="\/console\/billing">(Back to Billing|Cancel and go back to Billing)<\/a>/;

/** What every checkout page shares: the console's look, no script, a link back, no referrer. */
function assertConsolePage(response: { headers: Record<string, unknown>; body: string }) {
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(response.body, /<link rel="stylesheet" href="\/console\/console\.css">/);
  assert.match(response.body, /<a class="brand" href="\/console\/cells">Cellgate <span>Console<\/span><\/a>/);
  assert.doesNotMatch(response.body, /<script/);
  assert.match(response.body, BACK);
  assert.equal(response.headers['referrer-policy'], 'no-referrer', 'the URL carries its token');
  assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
  assert.doesNotMatch(response.body, /top_up|create_cell|\bsetup:|reinstate:/, 'no raw intent names');
}

describe('card checkout pages', () => {
  let org: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const start = async (payload: Record<string, unknown>) => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/billing/checkout', headers: org.headers, payload });
    assert.equal(response.statusCode, 201, response.body);
    return pathOf(response.json().checkout_url as string);
  };

  it('shows a plan setup in words with the amount on its Pay button, and a paid page leading back to Billing', async () => {
    const url = await start({ intent: 'setup', tier: 'pro' });
    const shown = await t.app.inject({ url });
    assert.equal(shown.statusCode, 200);
    assertConsolePage(shown);
    assert.match(shown.body, /<title>Pay \$100\.00: Pro plan setup — Cellgate Console<\/title>/);
    assert.match(shown.body, /<h1>Pay \$100\.00 by card<\/h1>/);
    assert.match(
      shown.body,
      /<p class="lead">Pro plan setup\. The first month of the Pro plan, which starts it at once\.<\/p>/,
    );
    assert.match(
      shown.body,
      /<dt>Open until<\/dt><dd><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/dd>/,
    );
    assert.match(shown.body, /no card is asked for or charged/);
    assert.match(shown.body, new RegExp(`<form method="post" action="${url.replace(/[?]/g, '\\?')}">`));
    assert.match(shown.body, /<button type="submit" class="primary">Pay \$100\.00<\/button>/);

    const paid = await t.app.inject({ method: 'POST', url, headers: FORM, payload: '' });
    assert.equal(paid.statusCode, 200);
    assertConsolePage(paid);
    assert.match(paid.body, /<h1>Paid: Pro plan setup<\/h1>/);
    assert.match(paid.body, /<p class="notice ok" role="status">\$100\.00 paid\./);
    assert.doesNotMatch(paid.body, /<form/, 'nothing left to pay');
    // Opening the link again shows it paid.
    assert.match((await t.app.inject({ url })).body, /<h1>Paid: Pro plan setup<\/h1>/);
  });

  it('says "Top up $25.00" for a top-up, before and after paying', async () => {
    const url = await start({ intent: 'top_up', amount_usd: '25' });
    const shown = await t.app.inject({ url });
    assertConsolePage(shown);
    assert.match(shown.body, /<dt>For<\/dt><dd>Top up \$25\.00<\/dd>/);
    assert.match(shown.body, /\$25\.00 added to the organization&#39;s prepaid balance/);
    const paid = await t.app.inject({ method: 'POST', url, headers: FORM, payload: '' });
    assert.match(paid.body, /<h1>Paid: Top up \$25\.00<\/h1>/);
  });

  it('says an expired checkout expired, charged nothing, and leads back to Billing', async () => {
    const url = await start({ intent: 'top_up', amount_usd: '5' });
    t.clock.advance(CHECKOUT_TTL_MS);
    const expired = await t.app.inject({ url });
    assert.equal(expired.statusCode, 409);
    assertConsolePage(expired);
    assert.match(expired.body, /<h1>This checkout expired<\/h1>/);
    assert.match(
      expired.body,
      /Top up \$5\.00 \(\$5\.00\) was not paid before <time[^>]*>[^<]+<\/time>; nothing was charged\./,
    );
  });

  it('answers an unknown checkout link with a page leading back to Billing', async () => {
    const url = await start({ intent: 'top_up', amount_usd: '5' });
    const unknown = await t.app.inject({ url: url.replace(/token=.*/, `token=${'x'.repeat(32)}`) });
    assert.equal(unknown.statusCode, 404);
    assertConsolePage(unknown);
    assert.match(unknown.body, /<h1>Checkout not found<\/h1>/);
  });

  it('names every intent in words', () => {
    const words = (intent: Parameters<typeof paymentWords>[0]['intent'], extra = {}) =>
      paymentWords({ intent, tier: null, cell_id: null, amount_micros: 25_000_000, ...extra }).name;
    assert.equal(words('setup', { tier: 'starter' }), 'Starter plan setup');
    assert.equal(words('renewal', { tier: 'pro' }), 'Pro plan renewal');
    assert.equal(words('renewal', { cell_id: 'cell_01' }), 'Cell renewal');
    assert.equal(words('top_up'), 'Top up $25.00');
    assert.equal(words('reinstate'), 'Reinstatement');
    assert.equal(words('create_cell'), 'One more cell');
  });
});
