import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startApp, verifiedOrganization, useApp } from '../../../../test/harness.ts';
import { startReceiver, type Receiver } from '../../../../test/support/webhook-receiver.ts';
import { postForm } from '../../../../test/support/console.ts';
import {
  failedDelivery,
  latestDelivery,
  page,
  post,
  signedInOrganization,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';

describe('console account pages: access', () => {
  const t = useApp();
  let org: SignedInOrg;
  let other: SignedInOrg;
  let receiver: Receiver;
  let webhookId: string;
  let deliveryId: string;
  let keyId: string;
  let key: string;

  before(async () => {
    receiver = await startReceiver();
    org = await signedInOrganization(t);
    other = await signedInOrganization(t);
    const failed = await failedDelivery(t, org, receiver);
    webhookId = failed.endpoint.id;
    deliveryId = failed.delivery.id;
    const created = (
      await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: { name: 'second' } })
    ).json();
    keyId = created.id;
    key = created.api_key;
  });
  after(async () => {
    await receiver.stop();
  });

  const posts = (): { url: string; fields: Record<string, string> }[] => [
    { url: '/console/keys', fields: { name: 'sneaky' } },
    { url: `/console/keys/${keyId}/revoke`, fields: {} },
    { url: `/console/webhooks/${webhookId}/deliveries/${deliveryId}/retry`, fields: { next: '/console/webhooks' } },
    { url: '/console/webhooks', fields: { url: `${receiver.url}?sneaky`, 'event:*': 'on' } },
    { url: `/console/webhooks/${webhookId}/enabled`, fields: { enabled: 'false' } },
    { url: '/console/billing/pay', fields: { intent: 'top_up', amount_usd: '10', rail: 'card_processor' } },
  ];

  /** What the posts above could change: keys, endpoints, the delivery, payments. */
  async function snapshot() {
    const keys = (await t.app.inject({ url: '/v1/auth/keys', headers: org.headers }))
      .json()
      .keys.map((k: { id: string }) => k.id);
    const webhooks = (await t.app.inject({ url: '/v1/webhooks', headers: org.headers }))
      .json()
      .webhooks.map((w: { id: string; enabled: boolean }) => [w.id, w.enabled]);
    const delivery = await latestDelivery(t, org, webhookId);
    const payments = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    return {
      keys,
      webhooks,
      delivery: [delivery.status, delivery.next_attempt_at],
      payments: payments.length,
      keyWorks: (await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(key) })).statusCode,
    };
  }

  it('sends a signed-out visitor of each page to sign in, and back to the page after', async () => {
    for (const path of [
      '/console/webhooks',
      `/console/webhooks/${webhookId}`,
      '/console/keys',
      `/console/keys/${keyId}/revoke`,
      '/console/billing',
    ]) {
      const response = await t.app.inject({ url: path });
      assert.equal(response.statusCode, 303, path);
      assert.equal(response.headers.location, `/console/sign-in?next=${encodeURIComponent(path)}`);
    }
  });

  it('refuses every post without the CSRF token (403), from another origin (403) or signed out (401), and changes nothing', async () => {
    const before = await snapshot();
    for (const { url, fields } of posts()) {
      const noToken = await postForm(t, url, fields, org.session.headers);
      assert.equal(noToken.statusCode, 403, `${url} without CSRF`);
      assert.match(noToken.body, /Request refused/);
      const wrongToken = await postForm(t, url, { ...fields, csrf_token: other.session.csrf }, org.session.headers);
      assert.equal(wrongToken.statusCode, 403, `${url} with another session's CSRF token`);
      const foreign = await post(t, org, url, fields, { origin: 'https://evil.example' });
      assert.equal(foreign.statusCode, 403, `${url} from another origin`);
      assert.match(foreign.body, /sent from another site/);
      const signedOut = await postForm(t, url, { ...fields, csrf_token: org.session.csrf });
      assert.equal(signedOut.statusCode, 401, `${url} signed out`);
    }
    assert.deepEqual(await snapshot(), before);
  });

  it("answers 404 for another organization's delivery, endpoint or key, and changes nothing", async () => {
    const before = await snapshot();
    for (const { url, fields } of posts().filter((p) => p.url.includes(webhookId) || p.url.includes(keyId))) {
      const response = await post(t, other, url, fields);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.body, / not found — Cellgate Console<\/title>/);
      assert.match(response.body, /does not exist or belongs to another organization/);
    }
    for (const path of [`/console/webhooks/${webhookId}`, `/console/keys/${keyId}/revoke`])
      assert.equal((await page(t, other, path)).statusCode, 404, path);
    assert.equal((await post(t, org, `/console/webhooks/${webhookId}/deliveries/dlv_unknown/retry`)).statusCode, 404);
    assert.equal((await post(t, org, '/console/keys/key_unknown/revoke')).statusCode, 404);
    assert.deepEqual(await snapshot(), before);
  });

  it("refuses to revoke the organization's last key (409)", async () => {
    const single = await signedInOrganization(t, await verifiedOrganization(t));
    const [only] = (await t.app.inject({ url: '/v1/auth/keys', headers: single.headers })).json().keys;
    const response = await post(t, single, `/console/keys/${only.id}/revoke`);
    assert.equal(response.statusCode, 409);
    assert.match(response.body, /last active API key; create another before revoking it/);
    assert.equal((await t.app.inject({ url: '/v1/auth/whoami', headers: single.headers })).statusCode, 200);
  });

  it('answers a list link with a forged cursor with 400', async () => {
    for (const path of [
      '/console/webhooks?cursor=forged',
      '/console/keys?cursor=forged',
      `/console/webhooks/${webhookId}?cursor=forged`,
    ]) {
      const response = await page(t, org, path);
      assert.equal(response.statusCode, 400, path);
      assert.match(response.body, /This list link is not valid/);
    }
  });
});

describe('console account forms: bad input', () => {
  const t = useApp();
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  const keyCount = async () => (await t.app.inject({ url: '/v1/auth/keys', headers: org.headers })).json().keys.length;
  const paymentCount = async () =>
    (
      await t.database.db
        .selectFrom('payments')
        .select('id')
        .where('organization_id', '=', org.organizationId)
        .execute()
    ).length;

  it('refuses an empty or too long key name with the error tied to the field, and creates nothing', async () => {
    const keys = await keyCount();
    for (const [name, message] of [
      ['', 'Enter a name for the key.'],
      ['   ', 'Enter a name for the key.'],
      ['x'.repeat(101), 'The name is too long (at most 100 characters).'],
    ]) {
      const response = await post(t, org, '/console/keys', { name });
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /<title>Error: API keys — Cellgate Console<\/title>/);
      assert.match(
        response.body,
        /<input id="key-name" name="name" type="text" value="[^"]*" required aria-describedby="key-name-hint key-name-error" aria-invalid="true"/,
      );
      assert.ok(response.body.includes(`<p class="field-error" id="key-name-error">${message}</p>`), message);
      assert.doesNotMatch(response.body, /cg_live_\w{32}/);
    }
    assert.equal(await keyCount(), keys);
  });

  it('refuses a top-up amount that is missing, malformed or below the minimum, with the error on the amount field', async () => {
    const payments = await paymentCount();
    const cases = [
      ['', 'Enter the amount to add, like 25 or 12.50.'],
      ['abc', 'The amount must be a decimal amount in dollars with at most 2 decimals, e.g. 25 or 12.50.'],
      ['10.005', 'The amount must be a decimal amount in dollars with at most 2 decimals'],
      ['4.99', 'The amount must be at least $5.00.'],
      ['99999999999', 'The amount must be a decimal amount'],
    ];
    for (const [amount, message] of cases) {
      const response = await post(t, org, '/console/billing/pay', {
        intent: 'top_up',
        amount_usd: amount,
        rail: 'card_processor',
      });
      assert.equal(response.statusCode, 400, amount);
      assert.match(response.body, /<title>Error: Billing — Cellgate Console<\/title>/);
      assert.match(
        response.body,
        /<input id="amount" name="amount_usd" type="text" value="[^"]*" aria-describedby="amount-hint amount-error" aria-invalid="true"/,
      );
      assert.ok(response.body.includes(`<p class="field-error" id="amount-error">${message}`), `${amount}: ${message}`);
    }
    assert.equal(await paymentCount(), payments);
  });

  it('refuses an unknown rail, a rail not configured here, and an unknown intent, with the error on that field', async () => {
    const payments = await paymentCount();
    const rail = await post(t, org, '/console/billing/pay', { intent: 'top_up', amount_usd: '10', rail: 'paypal' });
    assert.equal(rail.statusCode, 400);
    assert.match(rail.body, /<fieldset class="field rails" aria-describedby="rail-error">/);
    assert.match(rail.body, /<p class="field-error" id="rail-error">Choose a way to pay: by card, x402 or MPP\.<\/p>/);
    const unconfigured = await post(t, org, '/console/billing/pay', {
      intent: 'top_up',
      amount_usd: '10',
      rail: 'x402',
    });
    assert.equal(unconfigured.statusCode, 400);
    assert.match(
      unconfigured.body,
      /<p class="field-error" id="rail-error">x402 is not configured on this deployment\.<\/p>/,
    );
    const intent = await post(t, org, '/console/billing/pay', { intent: 'setup:gold', rail: 'card_processor' });
    assert.equal(intent.statusCode, 400);
    // The only thing an active organization pays for here is a top-up: said, not a radio group.
    assert.match(intent.body, /<p class="field" id="intent-only"\s+aria-describedby="intent-error"\s*>/);
    assert.match(intent.body, /<p class="field-error" id="intent-error">Choose what to pay for\.<\/p>/);
    const nothingDue = await post(t, org, '/console/billing/pay', { intent: 'reinstate', rail: 'card_processor' });
    assert.equal(nothingDue.statusCode, 409);
    assert.match(nothingDue.body, /Nothing to reinstate/);
    assert.equal(await paymentCount(), payments);
  });

  it('refuses an endpoint without a URL, with a URL it cannot take, or without events, and adds nothing', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ url: '', 'event:*': 'on' }, /<p class="field-error" id="webhook-url-error">Enter the URL of your receiver/],
      [
        { url: 'not a url', 'event:*': 'on' },
        /<p class="field-error" id="webhook-url-error">The URL is not an absolute URL\.<\/p>/,
      ],
      [
        { url: 'ftp://example.com/hooks', 'event:*': 'on' },
        /<p class="field-error" id="webhook-url-error">The URL must be an http or https URL\.<\/p>/,
      ],
      [
        { url: 'https://example.com/hooks' },
        /<fieldset class="field" aria-describedby="event-types-error">[\s\S]*<p class="field-error" id="event-types-error">Choose at least one kind of event\.<\/p>/,
      ],
    ];
    for (const [fields, error] of cases) {
      const response = await post(t, org, '/console/webhooks', fields);
      assert.equal(response.statusCode, 400, JSON.stringify(fields));
      assert.match(response.body, /<title>Error: Webhooks — Cellgate Console<\/title>/);
      assert.match(response.body, error);
      assert.doesNotMatch(response.body, /whsec_/);
    }
    assert.equal((await t.app.inject({ url: '/v1/webhooks', headers: org.headers })).json().webhooks.length, 0);
  });

  it('answers an enable switch that is neither true nor false with 400', async () => {
    const response = await post(t, org, '/console/webhooks/whk_x/enabled', { enabled: 'maybe' });
    assert.equal(response.statusCode, 400);
  });
});

describe('console billing with billing off', () => {
  it('says nothing is charged, offers no payment, and refuses a pay post (409)', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off' } });
    try {
      const org = await signedInOrganization(t);
      const body = (await page(t, org, '/console/billing')).body;
      assert.match(body, /Billing off<\/span>/);
      assert.doesNotMatch(body, /action="\/console\/billing\/pay"/);
      const response = await post(t, org, '/console/billing/pay', {
        intent: 'top_up',
        amount_usd: '10',
        rail: 'card_processor',
      });
      assert.equal(response.statusCode, 409);
      assert.match(response.body, /Billing is off/);
    } finally {
      await t.close();
    }
  });
});
