// The ways an MPP credential is refused (nothing is credited): an altered or foreign challenge, an
// expired one, a method not taken, a transfer short of the amount, not bound to the challenge,
// missing or reverted, an RPC down; billing off; and the configuration's own refusals.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Challenge, Credential } from 'mppx';
import { loadConfig, ConfigError } from '../../config.ts';
import { expectProblem, startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { MPP_TEST, mppEnv, startTempoRpc, type TempoRpcDouble } from '../../../test/support/mpp-rpc-double.ts';
import { tempoMemo } from './mpp-tempo.ts';
import { metaOf } from './mpp.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('MPP: refused credentials', () => {
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

  const TOP_UP = { intent: 'top_up', amount_usd: '10.00' };
  const challengeFor = async (org: Org) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/mpp/pay',
      headers: org.headers,
      payload: TOP_UP,
    });
    expectProblem(response, 402, 'payment_required');
    return Challenge.deserialize(String(response.headers['www-authenticate']));
  };
  const transfer = (
    challenge: Challenge.Challenge,
    change: { amount?: bigint; to?: `0x${string}`; memoOf?: string; reverted?: boolean } = {},
  ) =>
    rpc.transfer({
      token: MPP_TEST.token,
      to: change.to ?? MPP_TEST.recipient,
      amount: change.amount ?? BigInt(String(challenge.request.amount)),
      memo: tempoMemo(challenge.realm, change.memoOf ?? challenge.id),
      reverted: change.reverted,
    });
  const credentialOf = (challenge: Challenge.Challenge, hash: string) =>
    Credential.serialize(Credential.from({ challenge, payload: { type: 'hash', hash } }));
  const present = (credential: string, body: object = TOP_UP) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/mpp/pay', headers: { authorization: credential }, payload: body });
  /** Nothing credited: no payment in the ledger, no credential recorded, the balance untouched. */
  const assertNothingCredited = async (org: Org) => {
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(ledger.length, 0);
    const used = await t.database.db
      .selectFrom('mpp_credentials')
      .select('challenge_id')
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.equal(used.length, 0);
    const succeeded = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('organization_id', '=', org.organizationId)
      .where('status', '=', 'succeeded')
      .execute();
    assert.equal(succeeded.length, 0);
  };
  const refused = async (response: Awaited<ReturnType<typeof present>>, reason: RegExp) => {
    const problem = expectProblem(response, 402, 'payment_required');
    assert.match(problem.detail, reason);
    return problem;
  };

  it('refuses a challenge whose amount was altered (the HMAC no longer matches)', async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    const cheaper = { ...challenge, request: { ...challenge.request, amount: '1' } };
    const response = await present(credentialOf(cheaper, transfer(cheaper, { amount: 1n })));
    await refused(response, /not issued by this server or was altered/);
    await assertNothingCredited(org);
  });

  it('refuses a challenge signed with another secret', async () => {
    const org = await verifiedOrganization(t);
    const real = await challengeFor(org);
    const forged = Challenge.from({
      secretKey: 'another-secret-0123456789abcdefghijklmnop',
      realm: real.realm,
      method: real.method,
      intent: real.intent,
      request: real.request,
      expires: real.expires,
      meta: metaOf(real),
    });
    await refused(await present(credentialOf(forged, transfer(forged))), /not issued by this server/);
    await assertNothingCredited(org);
  });

  it('refuses an expired challenge, with a fresh one to pay', async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    const hash = transfer(challenge);
    t.clock.advance(301_000);
    const response = await present(credentialOf(challenge, hash));
    const problem = await refused(response, /expired/);
    assert.equal(problem.payment.intent, 'top_up');
    assert.equal(problem.payment.amount_usd, '10.00');
    const fresh = Challenge.deserialize(String(response.headers['www-authenticate']));
    assert.notEqual(fresh.id, challenge.id);
    assert.ok(Date.parse(String(fresh.expires)) > t.clock.now().getTime());
    await assertNothingCredited(org);
  });

  it('refuses a method this deployment does not take, even in a challenge bearing our HMAC', async () => {
    const org = await verifiedOrganization(t);
    const real = await challengeFor(org);
    const stripe = Challenge.from({
      secretKey: MPP_TEST.secret,
      realm: real.realm,
      method: 'stripe',
      intent: 'charge',
      request: { amount: '1000', currency: 'usd' },
      expires: real.expires,
      meta: metaOf(real),
    });
    await refused(
      await present(Credential.serialize(Credential.from({ challenge: stripe, payload: { spt: 'spt_test' } }))),
      /method stripe \(charge\) is not taken here; accepted: tempo/,
    );
    await assertNothingCredited(org);
  });

  it('refuses a transfer of less than the amount asked', async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    await refused(
      await present(credentialOf(challenge, transfer(challenge, { amount: 9_999_999n }))),
      /pays 9\.999999, less than the 10 asked/,
    );
    await assertNothingCredited(org);
  });

  it('refuses a transfer to another recipient, or whose memo binds another challenge', async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    await refused(
      await present(credentialOf(challenge, transfer(challenge, { to: '0x2222222222222222222222222222222222222222' }))),
      /no transfer of our currency to our recipient/,
    );
    await refused(
      await present(credentialOf(challenge, transfer(challenge, { memoOf: 'another-challenge' }))),
      /memo is not bound to this challenge/,
    );
    await assertNothingCredited(org);
  });

  it('refuses a transaction that is unknown or reverted, or when the RPC fails', async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    await refused(await present(credentialOf(challenge, `0x${'ab'.repeat(32)}`)), /not on chain 4217/);
    await refused(await present(credentialOf(challenge, transfer(challenge, { reverted: true }))), /reverted/);
    rpc.failing = true;
    try {
      await refused(await present(credentialOf(challenge, transfer(challenge))), /Tempo RPC did not answer/);
    } finally {
      rpc.failing = false;
    }
    await assertNothingCredited(org);
  });

  it('refuses a transaction already credited to another challenge (its memo binds the first)', async () => {
    const org = await verifiedOrganization(t);
    const first = await challengeFor(org);
    const hash = transfer(first);
    assert.equal((await present(credentialOf(first, hash))).statusCode, 200);
    const second = await challengeFor(org);
    await refused(await present(credentialOf(second, hash)), /memo is not bound/);
    const payments = await t.database.db
      .selectFrom('ledger_entries')
      .select('amount_micros')
      .where('organization_id', '=', org.organizationId)
      .where('kind', '=', 'payment')
      .execute();
    assert.deepEqual(
      payments.map((p) => Number(p.amount_micros)),
      [10_000_000],
    );
  });

  it("refuses a credential for another intent than the one asked, a malformed one, and one sent beside another organization's key", async () => {
    const org = await verifiedOrganization(t);
    const challenge = await challengeFor(org);
    const credential = credentialOf(challenge, transfer(challenge));
    await refused(await present(credential, { intent: 'setup' }), /pays top_up, not setup/);
    expectProblem(await present('Payment not-base64-json'), 400, 'invalid_request');
    const other = await verifiedOrganization(t);
    const beside = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/mpp/pay',
      headers: { ...other.headers, 'payment-authorization': credential },
      payload: TOP_UP,
    });
    expectProblem(beside, 403, 'forbidden');
    await assertNothingCredited(org);
  });

  it('asks for a key when neither a key nor a credential is sent', async () => {
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/billing/mpp/pay', payload: TOP_UP }),
      401,
      'unauthenticated',
    );
  });
});

describe('MPP: billing off', () => {
  let t: TestApp;
  let rpc: TempoRpcDouble;
  before(async () => {
    rpc = await startTempoRpc(MPP_TEST.chainId);
    t = await startApp({ env: { ...mppEnv(rpc.url), CELLGATE_BILLING: 'off' } });
  });
  after(async () => {
    await t.close();
    await rpc.close();
  });

  it('answers 409 billing_disabled on the pay route, with or without a credential', async () => {
    const org = await verifiedOrganization(t);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/mpp/pay',
        headers: org.headers,
        payload: { intent: 'setup' },
      }),
      409,
      'billing_disabled',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/billing/mpp/pay',
        headers: { authorization: 'Payment e30' },
        payload: { intent: 'setup' },
      }),
      409,
      'billing_disabled',
    );
  });
});

describe('MPP: configuration', () => {
  const base = {
    CELLGATE_MPP_SECRET: MPP_TEST.secret,
    CELLGATE_MPP_METHODS: JSON.stringify({ tempo: { recipient: MPP_TEST.recipient } }),
  };
  const failure = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.ok(!error.message.includes('\n'));
      assert.ok(!error.message.includes(MPP_TEST.secret));
      return error.message;
    }
    throw new Error('expected a configuration error');
  };

  it('takes both variables, with mainnet defaults, or neither', () => {
    const config = loadConfig(base);
    assert.deepEqual(config.mpp?.methods.tempo, {
      recipient: MPP_TEST.recipient,
      chainId: 4217,
      currency: MPP_TEST.token,
      rpcUrl: 'https://rpc.tempo.xyz',
      decimals: 6,
    });
    assert.equal(
      loadConfig({
        ...base,
        CELLGATE_MPP_METHODS: JSON.stringify({ tempo: { recipient: MPP_TEST.recipient, testnet: true } }),
      }).mpp?.methods.tempo?.chainId,
      42431,
    );
    assert.equal(loadConfig({}).mpp, null);
  });

  it('stops with one line when one variable is missing or a value is wrong', () => {
    assert.match(
      failure({ CELLGATE_MPP_SECRET: MPP_TEST.secret }),
      /^CELLGATE_MPP_METHODS must be set with CELLGATE_MPP_SECRET/,
    );
    assert.match(
      failure({ CELLGATE_MPP_METHODS: base.CELLGATE_MPP_METHODS }),
      /^CELLGATE_MPP_SECRET must be set with CELLGATE_MPP_METHODS/,
    );
    assert.match(
      failure({ ...base, CELLGATE_MPP_SECRET: 'short' }),
      /^CELLGATE_MPP_SECRET must be a secret of at least 32 characters/,
    );
    assert.match(
      failure({ ...base, CELLGATE_MPP_METHODS: '{"stripe": {}}' }),
      /^CELLGATE_MPP_METHODS names an unknown method "stripe"/,
    );
    assert.match(
      failure({ ...base, CELLGATE_MPP_METHODS: '{"tempo": {"recipient": "0xnope"}}' }),
      /^CELLGATE_MPP_METHODS tempo.recipient must be a 0x EVM address/,
    );
    assert.match(failure({ ...base, CELLGATE_MPP_METHODS: 'tempo' }), /^CELLGATE_MPP_METHODS must be JSON/);
  });
});
