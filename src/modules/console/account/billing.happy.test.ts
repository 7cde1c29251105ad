import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../../test/support/billing.ts';
import { mppEnv } from '../../../../test/support/mpp-rpc-double.ts';
import {
  page,
  pathOf,
  post,
  signedInOrganization,
  usageOnDays,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('console billing', () => {
  const t = useApp();
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it("shows the status, the balance and the month's usage as a chart with one bar per day that has usage, and a table", async () => {
    const dates = await usageOnDays(t, org.organizationId, [1, 3, 3, 10], { before: true });
    const other = await signedInOrganization(t);
    await usageOnDays(t, other.organizationId, [2, 4, 5]);

    const response = await page(t, org, '/console/billing');
    assert.equal(response.statusCode, 200);
    const body = response.body;
    assert.match(body, /<a href="\/console\/billing" aria-current="page">Billing<\/a>/);
    assert.match(
      body,
      /<dt>Organization<\/dt><dd><span class="state state-ok"><span aria-hidden="true">✓ <\/span>Active<\/span><\/dd>/,
    );
    assert.match(
      body,
      /<dt>Billing<\/dt><dd><span class="state state-ok"><span aria-hidden="true">✓ <\/span>Active<\/span>/,
    );
    assert.match(body, /<dt>Plan<\/dt><dd>Pro: \$100\.00 a month, 10 cells included<\/dd>/);
    assert.match(body, /<dt>Period ends<\/dt><dd><time datetime="2\d{3}-/);
    assert.match(body, /<dt>Prepaid balance<\/dt><dd><strong class="balance">\$1000\.00<\/strong><\/dd>/);

    // Days 1, 3 (twice) and 10: three bars; the previous month and the other organization are left out.
    const svg = body.match(/<svg role="img" aria-labelledby="usage-chart-title usage-chart-desc"[\s\S]*?<\/svg>/)?.[0];
    assert.ok(svg, 'an inline SVG chart');
    assert.equal(svg.match(/<rect class="bar"/g)?.length, dates.length);
    assert.equal(dates.length, 3);
    assert.match(svg, /<title id="usage-chart-title">Usage per day in \w+ \d{4}, in US dollars<\/title>/);
    assert.match(svg, /<desc id="usage-chart-desc">\$0\.26 over 3 days with usage; the highest was \$0\.13 on /);
    const table = body.match(/<table class="usage-days">[\s\S]*?<\/table>/)?.[0] ?? '';
    assert.match(table, /<caption>Usage by day in \w+ \d{4} \(days with usage only\)<\/caption>/);
    assert.equal(table.match(/<th scope="row">/g)?.length, 3);
    const row = table.match(new RegExp(`<time datetime="${dates[1]}">[\\s\\S]*?</tr>`))?.[0] ?? '';
    assert.deepEqual(
      [...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]),
      ['7', '2', '0', '$0.13'],
    );
    assert.match(body, /<dt>Total<\/dt><dd><strong>\$0\.26<\/strong><\/dd>/);
    assert.match(body, /<dt>SMS<\/dt><dd>14 segments, \$0\.14<\/dd>/);
  });

  it('says when a month has no usage yet', async () => {
    const fresh = await signedInOrganization(t);
    const body = (await page(t, fresh, '/console/billing')).body;
    assert.match(body, /<p>No usage yet this month\.<\/p>/);
    assert.doesNotMatch(body, /<svg/);
  });

  it('pays by card: the button answers 303 to a checkout that works, and the balance grows', async () => {
    const billing = await page(t, org, '/console/billing');
    const form = billing.body;
    assert.match(form, /<form method="post" action="\/console\/billing\/pay" novalidate>/);
    // The page holding the form lets it reach the checkout's origin (Chromium checks the redirect).
    assert.match(String(billing.headers['content-security-policy']), /form-action 'self' http:\/\/cellgate\.test/);
    assert.match(
      form,
      /<button type="submit" name="rail" value="card_processor" class="primary">Pay by card<\/button>/,
    );
    assert.match(form, /built-in card page/);

    const paying = await post(t, org, '/console/billing/pay', {
      intent: 'top_up',
      amount_usd: '25.50',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    const location = String(paying.headers.location);
    assert.match(location, /^http:\/\/cellgate\.test\/v1\/billing\/checkout\/pay_\w+\?token=\w{32}$/);

    const checkout = await t.app.inject({ url: pathOf(location) });
    assert.equal(checkout.statusCode, 200);
    assert.match(checkout.body, /<dt>For<\/dt><dd>Top up \$25\.50<\/dd>/);
    const paid = await t.app.inject({ method: 'POST', url: pathOf(location), headers: FORM, payload: '' });
    assert.match(paid.body, /<h1>Paid: Top up \$25\.50<\/h1>/);
    assert.match((await page(t, org, '/console/billing')).body, /<strong class="balance">\$1025\.50<\/strong>/);
  });

  it('starts a plan for an organization without one, by card', async () => {
    const fresh = await signedInOrganization(t, await verifiedOrganization(t));
    const body = (await page(t, fresh, '/console/billing')).body;
    assert.match(body, /No plan yet/);
    assert.match(
      body,
      /<input type="radio" id="intent-0" name="intent" value="setup:starter" checked>\n<label for="intent-0">Start the Starter plan: \$20\.00 for the first month, 1 cell included<\/label>/,
    );
    assert.match(body, /value="setup:pro"/);
    const paying = await post(t, fresh, '/console/billing/pay', {
      intent: 'setup:starter',
      amount_usd: '',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    await t.app.inject({ method: 'POST', url: pathOf(String(paying.headers.location)), headers: FORM, payload: '' });
    const after = (await page(t, fresh, '/console/billing')).body;
    assert.match(after, /<dt>Plan<\/dt><dd>Starter: \$20\.00 a month, 1 cell included<\/dd>/);
    assert.doesNotMatch(after, /value="setup:starter"/, 'no second setup');
  });

  it('starts a plan with a starting balance, by card: one payment, the rest on the balance', async () => {
    const fresh = await signedInOrganization(t, await verifiedOrganization(t));
    const paying = await post(t, fresh, '/console/billing/pay', {
      intent: 'setup:starter',
      amount_usd: '25',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 303, paying.body);
    const checkout = await t.app.inject({ url: pathOf(String(paying.headers.location)) });
    assert.match(checkout.body, /\$45\.00/);
    await t.app.inject({ method: 'POST', url: pathOf(String(paying.headers.location)), headers: FORM, payload: '' });
    const after = (await page(t, fresh, '/console/billing')).body;
    assert.match(after, /<dt>Plan<\/dt><dd>Starter: \$20\.00 a month, 1 cell included<\/dd>/);
    assert.match(after, /<strong class="balance">\$25\.00<\/strong>/);
  });

  it('says the one thing to pay for instead of offering a one-option radio group', async () => {
    const body = (await page(t, org, '/console/billing')).body;
    assert.doesNotMatch(body, /type="radio"[^>]*name="intent"/);
    assert.match(
      body,
      /<p class="field" id="intent-only"\s*>\s*<strong>What to pay for:<\/strong> Add funds to the prepaid balance \(messages are paid from it\)<input\s+type="hidden"\s+name="intent"\s+value="top_up"/,
    );
  });

  it('says x402 and MPP are not configured here, with no button for them', async () => {
    const body = (await page(t, org, '/console/billing')).body;
    assert.match(
      body,
      /x402: not configured<\/span><p class="small">Paying with USDC on Base or Solana is not configured on this deployment\.<\/p>/,
    );
    assert.match(body, /MPP: not configured/);
    assert.doesNotMatch(body, /value="x402"|value="mpp"/);
  });
});

describe('console billing with x402 and MPP configured', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, ...mppEnv('http://127.0.0.1:9') } });
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it('shows how an agent pays the chosen intent over x402: the amount, the REST call and where the USDC goes', async () => {
    const form = (await page(t, org, '/console/billing')).body;
    assert.match(
      form,
      /<button type="submit" name="rail" value="x402" class="secondary">Show x402 payment details<\/button>/,
    );
    const shown = await post(t, org, '/console/billing/pay', { intent: 'top_up', amount_usd: '40', rail: 'x402' });
    assert.equal(shown.statusCode, 200, shown.body);
    const details = shown.body.match(/<section id="payment-details"[\s\S]*?<\/section>/)?.[0] ?? '';
    assert.match(details, /<h2 id="payment-details-heading">Pay \$40\.00 over x402<\/h2>/);
    assert.match(
      details,
      /<code>POST http:\/\/cellgate\.test\/v1\/billing\/x402\/pay<\/code> with the key as bearer and the body <code>\{&#34;intent&#34;:&#34;top_up&#34;,&#34;amount_usd&#34;:&#34;40&#34;\}<\/code>/,
    );
    assert.match(details, /PAYMENT-SIGNATURE/);
    assert.match(details, new RegExp(`<td data-label="Pay to" class="mono">${BASE_PAY_TO}</td>`));
    assert.match(details, /<td data-label="Chain" class="mono">eip155:8453<\/td>/);
    // Contract §7: a registered wallet is unverified until it signs; only verified wallets are credited.
    assert.match(
      details,
      /from a wallet it registered \(<code>POST \/v1\/billing\/x402\/wallets<\/code>\) and then verified/,
    );
    assert.match(details, /Only deposits from a verified wallet are credited to this organization/);
    assert.match(details, /its deposits are held for the operator/);
    assert.match(shown.body, /value="40"/, 'the form keeps the amount');
  });

  it('shows how an agent pays over MPP: the pay URL, realm and methods', async () => {
    const shown = await post(t, org, '/console/billing/pay', { intent: 'top_up', amount_usd: '12.50', rail: 'mpp' });
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /<h2 id="payment-details-heading">Pay \$12\.50 over MPP<\/h2>/);
    assert.match(shown.body, /<code>POST http:\/\/cellgate\.test\/v1\/billing\/mpp\/pay<\/code>/);
    assert.match(shown.body, /<dt>Realm<\/dt><dd class="mono">cellgate\.test<\/dd>/);
    assert.match(shown.body, /<dt>Methods<\/dt><dd>tempo<\/dd>/);
  });
});

describe('console billing with the card processor off', () => {
  const t = useApp({ env: { CELLGATE_CARD_PROCESSOR: 'off', CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  it('offers no card button and says card payments are not offered here, keeping the other rails', async () => {
    const body = (await page(t, org, '/console/billing')).body;
    assert.doesNotMatch(body, /value="card_processor"|Pay by card|card page|Stripe Checkout/);
    assert.match(
      body,
      /Card: not offered<\/span><p class="small">Card payments are not offered on this deployment\.<\/p>/,
    );
    assert.match(
      body,
      /<button type="submit" name="rail" value="x402" class="secondary">Show x402 payment details<\/button>/,
    );
  });

  it('refuses a forged card post with the form and its reason, starting no payment', async () => {
    const paying = await post(t, org, '/console/billing/pay', {
      intent: 'top_up',
      amount_usd: '25',
      rail: 'card_processor',
    });
    assert.equal(paying.statusCode, 400, paying.body);
    assert.match(paying.body, /Card payment is not configured on this deployment\./);
    assert.doesNotMatch(paying.body, /value="card_processor"/);
    const payments = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(payments, []);
  });
});
