import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { baseKey, verifiedWallet } from '../../../test/support/wallets.ts';
import { createCell } from '../../../test/support/cells.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('x402 requirements with bad input', () => {
  let org: Org;
  let other: Org;
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  before(async () => {
    org = await verifiedOrganization(t);
    other = await activeOrganization(t);
  });

  const quote = (query: string, headers = org.headers) =>
    t.app.inject({ method: 'GET', url: `/v1/billing/x402/requirements?${query}`, headers });

  const cases: [string, string, string][] = [
    ['no intent', '', 'intent'],
    ['an unknown intent', 'intent=donate', 'intent'],
    ['an unknown tier', 'intent=setup&tier=gold', 'tier'],
    ['an unknown network', 'intent=setup&network=ethereum', 'network'],
    ['a network that is not configured', 'intent=setup&network=solana', 'network'],
    ['a top_up without amount', 'intent=top_up', 'amount_usd'],
    ['a top_up below the minimum', 'intent=top_up&amount_usd=4.99', 'amount_usd'],
    ['a negative amount', 'intent=top_up&amount_usd=-10', 'amount_usd'],
    ['an amount that is not a number', 'intent=top_up&amount_usd=NaN', 'amount_usd'],
    ['an amount with an exponent', 'intent=top_up&amount_usd=1e3', 'amount_usd'],
    ['an amount with 3 decimals', 'intent=top_up&amount_usd=10.001', 'amount_usd'],
    ['an empty amount', 'intent=top_up&amount_usd=', 'amount_usd'],
    ['an amount in hex', 'intent=top_up&amount_usd=0x10', 'amount_usd'],
    ['an amount with an exponent on another intent', 'intent=setup&amount_usd=2e1', 'amount_usd'],
  ];
  for (const [name, query, field] of cases) {
    it(`answers 400 naming ${field} for ${name}`, async () => {
      const body = expectProblem(await quote(query), 400, 'invalid_request');
      assert.equal(body.errors?.[0]?.field, field, JSON.stringify(body));
    });
  }

  it("answers 404 for the renewal of an unknown cell and of another organization's cell", async () => {
    expectProblem(await quote('intent=renewal&cell_id=cell_01jdx4c5d6e7f8g9h0j1k2m3n4'), 404, 'not_found');
    const cell = await createCell(t, other.headers);
    expectProblem(await quote(`intent=renewal&cell_id=${cell.id}`), 404, 'not_found');
    assert.equal((await quote(`intent=renewal&cell_id=${cell.id}`, other.headers)).statusCode, 200);
  });

  it('answers 409 conflict for reinstate when the organization is neither past due nor suspended', async () => {
    expectProblem(await quote('intent=reinstate'), 409, 'conflict');
  });
});

describe('payer wallets with bad input', () => {
  let org: Org;
  let other: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    other = await activeOrganization(t);
  });

  const register = (payload: Record<string, unknown>, headers = org.headers) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/x402/wallets', headers, payload });

  const cases: [string, Record<string, unknown>, string, string][] = [
    ['a missing network', { address: BASE_PAY_TO }, 'network', 'required'],
    ['an unknown network', { network: 'ethereum', address: BASE_PAY_TO }, 'network', 'invalid_value'],
    ['a missing address', { network: 'base' }, 'address', 'required'],
    [
      'an EVM address with a wrong checksum',
      { network: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d35A' },
      'address',
      'invalid_format',
    ],
    [
      'a short EVM address',
      { network: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d3' },
      'address',
      'invalid_format',
    ],
    [
      'an EVM address without 0x',
      { network: 'base', address: 'fB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
      'address',
      'invalid_format',
    ],
    [
      'a Solana address on base',
      { network: 'base', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      'address',
      'invalid_format',
    ],
    ['an EVM address on solana', { network: 'solana', address: BASE_PAY_TO }, 'address', 'invalid_format'],
    ['a base58 string that is not 32 bytes', { network: 'solana', address: '3yZe7d' }, 'address', 'invalid_format'],
    [
      'a Solana address with a character outside base58',
      { network: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10' },
      'address',
      'invalid_format',
    ],
    ['an unknown field', { network: 'base', address: BASE_PAY_TO, memo: 'x' }, 'memo', 'unknown_field'],
    [
      'a label over 100 characters',
      { network: 'base', address: BASE_PAY_TO, label: 'x'.repeat(101) },
      'label',
      'too_long',
    ],
  ];
  for (const [name, payload, field, code] of cases) {
    it(`answers 400 ${code} on ${field} for ${name}`, async () => {
      const body = expectProblem(await register(payload), 400, 'invalid_request');
      assert.equal(body.errors?.[0]?.field, field, JSON.stringify(body));
      assert.equal(body.errors?.[0]?.code, code, JSON.stringify(body));
    });
  }

  it('answers 409 wallet_already_registered when another organization has verified the wallet, whatever its case', async () => {
    const key = baseKey();
    assert.equal((await register({ network: 'base', address: key.address }, other.headers)).statusCode, 201);
    // An unverified claim blocks nobody.
    assert.equal((await register({ network: 'base', address: key.address.toLowerCase() })).statusCode, 201);
    await verifiedWallet(t, other.headers, key);
    expectProblem(
      await register({ network: 'base', address: key.address.toLowerCase() }),
      409,
      'wallet_already_registered',
    );
  });

  it('answers 404 when removing an unknown wallet', async () => {
    expectProblem(
      await t.app.inject({
        method: 'DELETE',
        url: '/v1/billing/x402/wallets/wal_01jdx4c5d6e7f8g9h0j1k2m3n4',
        headers: org.headers,
      }),
      404,
      'not_found',
    );
  });

  it('answers 400 for a page size out of range', async () => {
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets?limit=201', headers: org.headers }),
      400,
      'invalid_request',
    );
  });
});
