// The MPP rail end to end: the 402 challenge, a payer that broadcasts a TIP-20 transfer bound to it
// (served by a local Tempo RPC) and presents the hash as `Authorization: Payment`, the intent paid
// once with a Payment-Receipt; discovery and the rails listing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Challenge, Credential, Receipt } from 'mppx';
import { atEpoch, startApp, verifiedOrganization, type TestApp, useApp } from '../../../test/harness.ts';
import { MPP_TEST, mppEnv, startTempoRpc, type TempoRpcDouble } from '../../../test/support/mpp-rpc-double.ts';
import { tempoMemo } from './mpp-tempo.ts';
import { metaOf } from './mpp.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('MPP: pay an intent with a Payment credential', () => {
  let t: TestApp;
  let rpc: TempoRpcDouble;

  before(async () => {
    rpc = await startTempoRpc(MPP_TEST.chainId);
    t = await startApp({ env: mppEnv(rpc.url) });
  });
  after(async () => {
    await t.close();
    await rpc.close();
  });

  const ask = (org: Org, body: object) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/mpp/pay', headers: org.headers, payload: body });
  const challengeOf = (response: { headers: Record<string, unknown> }) =>
    Challenge.deserialize(String(response.headers['www-authenticate']));
  /** What a payer does: broadcast the transfer with the challenge's memo, then present the hash. */
  const payFor = (challenge: Challenge.Challenge, amount = BigInt(String(challenge.request.amount))) => {
    const hash = rpc.transfer({
      token: MPP_TEST.token,
      to: MPP_TEST.recipient,
      amount,
      memo: tempoMemo(challenge.realm, challenge.id),
    });
    return Credential.serialize(Credential.from({ challenge, payload: { type: 'hash', hash } }));
  };
  const present = (credential: string, body: object) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/mpp/pay', headers: { authorization: credential }, payload: body });
  const payments = (org: Org) =>
    t.database.db
      .selectFrom('ledger_entries')
      .select(['amount_micros', 'reference'])
      .where('organization_id', '=', org.organizationId)
      .where('kind', '=', 'payment')
      .execute();

  it('answers 402 with the intent and a Payment challenge bound by HMAC to realm, method, amount and expiry', async () => {
    const org = await verifiedOrganization(t);
    const response = await ask(org, { intent: 'setup' });
    assert.equal(response.statusCode, 402, response.body);
    const payment = response.json().payment;
    assert.equal(payment.intent, 'setup');
    assert.equal(payment.amount_usd, '20.00');
    assert.deepEqual(payment.rails, ['card_processor', 'mpp']);
    assert.equal(payment.mpp.realm, 'cellgate.test');
    assert.equal(payment.mpp.pay_url, 'http://cellgate.test/v1/billing/mpp/pay');
    assert.match(String(response.headers['www-authenticate']), /^Payment id="/);
    const challenge = challengeOf(response);
    assert.deepEqual(
      [challenge.realm, challenge.method, challenge.intent, challenge.expires],
      ['cellgate.test', 'tempo', 'charge', atEpoch(300_000)],
    );
    assert.deepEqual(challenge.request, {
      amount: '20000000',
      currency: MPP_TEST.token,
      recipient: MPP_TEST.recipient,
      methodDetails: { chainId: 4217, supportedModes: ['push'] },
    });
    assert.equal(Challenge.verify(challenge, { secretKey: MPP_TEST.secret }), true);
    assert.equal(metaOf(challenge).organization_id, org.organizationId);
    assert.deepEqual(payment.mpp.challenge_ids, [challenge.id]);
  });

  it('pays a setup end to end: the organization is active at the tier, credited once, with a Payment-Receipt', async () => {
    const org = await verifiedOrganization(t);
    const challenge = challengeOf(await ask(org, { intent: 'setup', tier: 'pro' }));
    assert.equal(challenge.request.amount, '100000000');
    const credential = payFor(challenge);
    const response = await present(credential, { intent: 'setup', tier: 'pro' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.intent, 'setup');
    assert.equal(body.amount_usd, '100.00');
    assert.match(body.payment_id, /^pay_/);
    assert.deepEqual([body.billing.state, body.billing.tier, body.billing.prepaid_balance_usd], ['active', 'pro', 0]);
    const receipt = Receipt.deserialize(String(response.headers['payment-receipt']));
    assert.deepEqual([receipt.method, receipt.status, receipt.externalId], ['tempo', 'success', body.payment_id]);
    assert.match(receipt.reference, /^0x[0-9a-f]{64}$/);
    assert.deepEqual(
      (await payments(org)).map((p) => [Number(p.amount_micros), p.reference]),
      [[100_000_000, `mpp:${body.payment_id}`]],
    );
    assert.ok(rpc.calls.includes('eth_getTransactionReceipt'));
  });

  it('pays a top_up: the amount lands on the prepaid balance', async () => {
    const org = await verifiedOrganization(t);
    const challenge = challengeOf(await ask(org, { intent: 'top_up', amount_usd: '25.00' }));
    const response = await present(payFor(challenge), { intent: 'top_up', amount_usd: '25.00' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().billing.prepaid_balance_usd, 25);
    assert.equal(response.json().billing.state, 'inactive');
  });

  it('takes the same credential once: the second presentation is 409 conflict and nothing more is credited', async () => {
    const org = await verifiedOrganization(t);
    const challenge = challengeOf(await ask(org, { intent: 'top_up', amount_usd: '5' }));
    const credential = payFor(challenge);
    assert.equal((await present(credential, { intent: 'top_up', amount_usd: '5' })).statusCode, 200);
    const again = await present(credential, { intent: 'top_up', amount_usd: '5' });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().code, 'conflict');
    assert.match(again.json().detail, /already used/);
    assert.deepEqual(
      (await payments(org)).map((p) => Number(p.amount_micros)),
      [5_000_000],
    );
  });

  it('takes the credential in Payment-Authorization beside the API key', async () => {
    const org = await verifiedOrganization(t);
    const challenge = challengeOf(await ask(org, { intent: 'create_cell' }));
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/mpp/pay',
      headers: { ...org.headers, 'payment-authorization': payFor(challenge) },
      payload: { intent: 'create_cell' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().amount_usd, '8.00');
  });

  it('describes the realm, methods, intents and pay endpoint at /.well-known/mpp, without a key', async () => {
    const response = await t.app.inject({ url: '/.well-known/mpp' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.realm, 'cellgate.test');
    assert.deepEqual(body.methods, [
      {
        method: 'tempo',
        intents: ['charge'],
        modes: ['push'],
        chain_id: 4217,
        currency: MPP_TEST.token,
        decimals: 6,
        recipient: MPP_TEST.recipient,
      },
    ]);
    assert.deepEqual(body.intents, ['setup', 'renewal', 'top_up', 'reinstate', 'create_cell']);
    assert.deepEqual(body.currencies, ['USD']);
    assert.equal(body.pay_endpoint.url, 'http://cellgate.test/v1/billing/mpp/pay');
  });

  it('lists mpp in the rails of payment options, requirements and every billing 402', async () => {
    const org = await verifiedOrganization(t);
    const options = (await t.app.inject({ url: '/v1/billing/payment-options', headers: org.headers })).json();
    assert.deepEqual(options.rails, ['card_processor', 'mpp']);
    assert.equal(options.mpp.realm, 'cellgate.test');
    const requirements = (
      await t.app.inject({ url: '/v1/billing/x402/requirements?intent=setup', headers: org.headers })
    ).json();
    assert.deepEqual(requirements.rails, ['card_processor', 'mpp']);
    assert.deepEqual(requirements.mpp.methods, ['tempo']);
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'x' },
    });
    assert.equal(create.statusCode, 402);
    assert.ok(create.json().payment.rails.includes('mpp'));
  });

  it('documents the pay route in the OpenAPI document', async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json();
    const operation = document.paths['/v1/billing/mpp/pay'].post;
    assert.equal(operation.operationId, 'payWithMpp');
    assert.ok(operation.responses['200'] && operation.responses['402'] && operation.responses['409']);
    assert.equal(document.paths['/.well-known/mpp'].get.operationId, 'getMppDiscovery');
  });
});

describe('MPP: not configured', () => {
  const t = useApp();

  it('leaves mpp out of the rails, answers 404 at /.well-known/mpp and 409 on the pay route', async () => {
    const org = await verifiedOrganization(t);
    const options = (await t.app.inject({ url: '/v1/billing/payment-options', headers: org.headers })).json();
    assert.deepEqual(options.rails, ['card_processor']);
    assert.equal(options.mpp, undefined);
    const requirements = (
      await t.app.inject({ url: '/v1/billing/x402/requirements?intent=setup', headers: org.headers })
    ).json();
    assert.deepEqual(requirements.rails, ['card_processor']);
    assert.equal(requirements.mpp, undefined);
    assert.equal((await t.app.inject({ url: '/.well-known/mpp' })).statusCode, 404);
    const pay = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/mpp/pay',
      headers: org.headers,
      payload: { intent: 'setup' },
    });
    assert.equal(pay.statusCode, 409, pay.body);
    assert.match(pay.json().detail, /MPP is not offered/);
  });
});
