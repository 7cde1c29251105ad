import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifiedOrganization, startApp, useApp } from '../../../test/harness.ts';
import {
  BASE_PAY_TO,
  BOTH_NETWORKS as BOTH,
  createExtraCell,
  grant,
  SOLANA_PAY_TO,
} from '../../../test/support/billing.ts';
import { createCell } from '../../../test/support/cells.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;

describe('billing status and payment options', () => {
  const t = useApp({ env: BOTH });
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('answers inactive with no tier, a zero balance and nothing due for a new organization', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      state: 'inactive',
      tier: null,
      prepaid_balance_usd: 0,
      current_period_end: null,
      amount_due_usd: 0,
      cells: { included: 0, active: 0 },
    });
  });

  it('lists card and x402 rails, the balance and minimum as numbers, and a quote per configured network', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(body.rails, ['card_processor', 'x402']);
    assert.equal(body.prepaid_balance_usd, 0);
    assert.equal(body.min_amount_usd, 5);
    assert.equal(typeof body.card_processor, 'object');
    assert.deepEqual(body.x402.networks, ['base', 'solana']);
    assert.equal(body.x402.quotes.length, 2);
    assert.equal(body.x402.pay_to, undefined);
    assert.equal(body.x402.network, undefined);
  });
});

describe('x402 requirements per intent', () => {
  const t = useApp({ env: BOTH });
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const quote = (query: string) =>
    t.app.inject({ method: 'GET', url: `/v1/billing/x402/requirements?${query}`, headers: org.headers });

  it('quotes the first starter period for setup, on both mainnet rails', async () => {
    const response = await quote('intent=setup');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.amount_usd, '20.00');
    assert.equal(body.currency, 'USD');
    assert.equal(body.intent, 'setup');
    assert.equal(body.tier, 'starter');
    assert.deepEqual(body.rails, ['card_processor', 'x402']);
    assert.deepEqual(body.x402.schemes, ['exact']);
    assert.deepEqual(body.x402.networks, ['base', 'solana']);
    assert.deepEqual(body.x402.accepted_networks, ['base', 'solana']);
    assert.equal(body.x402.asset, 'USDC');
    assert.deepEqual(body.x402.quotes, [
      {
        network: 'base',
        caip2_network: 'eip155:8453',
        asset: 'USDC',
        pay_to: BASE_PAY_TO,
        contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      },
      {
        network: 'solana',
        caip2_network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        asset: 'USDC',
        pay_to: SOLANA_PAY_TO,
        mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      },
    ]);
    assert.equal('pay_to' in body.x402, false);
    assert.equal('network' in body.x402, false);
  });

  it('quotes the pro tier when asked', async () => {
    const body = (await quote('intent=setup&tier=pro')).json();
    assert.equal(body.amount_usd, '100.00');
    assert.equal(body.tier, 'pro');
  });

  it('restricts to one rail with network, with pay_to and the CAIP-2 network at the top', async () => {
    const body = (await quote('intent=setup&network=solana')).json();
    assert.deepEqual(body.x402.networks, ['base', 'solana']);
    assert.deepEqual(body.x402.accepted_networks, ['solana']);
    assert.equal(body.x402.quotes.length, 1);
    assert.equal(body.x402.pay_to, SOLANA_PAY_TO);
    assert.equal(body.x402.network, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  });

  it('quotes a top_up of the amount asked, as a decimal string', async () => {
    for (const [amount, expected] of [
      ['25', '25.00'],
      ['12.5', '12.50'],
      ['5.00', '5.00'],
    ]) {
      const body = (await quote(`intent=top_up&amount_usd=${amount}`)).json();
      assert.equal(body.amount_usd, expected);
      assert.equal(body.intent, 'top_up');
    }
  });

  it('quotes one cell-month for create_cell and for the renewal of one cell', async () => {
    assert.equal((await quote('intent=create_cell')).json().amount_usd, '8.00');
    await grant(t, org.organizationId);
    const cell = await createCell(t, org.headers);
    const body = (await quote(`intent=renewal&cell_id=${cell.id}`)).json();
    assert.equal(body.amount_usd, '8.00');
    assert.equal(body.cell_id, cell.id);
  });

  it('quotes the renewal of the tier with the cells beyond those included', async () => {
    await createExtraCell(t, org.headers, 'Second');
    await createExtraCell(t, org.headers, 'Third');
    // three cells on starter (one included): 20 + 2 x 8
    const body = (await quote('intent=renewal')).json();
    assert.equal(body.amount_usd, '36.00');
    assert.equal(body.tier, 'starter');
  });
});

describe('x402 requirements with one network, testnets and configured prices', () => {
  const t = useApp({
    env: {
      CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO,
      CELLGATE_X402_TESTNET: 'true',
      CELLGATE_PRICES: JSON.stringify({ tiers: { starter: { price_usd: 25.5, cells: 2 } }, min_amount_usd: 10 }),
    },
  });
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  it('quotes Base Sepolia alone, with pay_to and network at the top', async () => {
    const body = (
      await t.app.inject({ method: 'GET', url: '/v1/billing/x402/requirements?intent=setup', headers: org.headers })
    ).json();
    assert.equal(body.amount_usd, '25.50');
    assert.deepEqual(body.x402.networks, ['base']);
    assert.deepEqual(body.x402.quotes, [
      {
        network: 'base',
        caip2_network: 'eip155:84532',
        asset: 'USDC',
        pay_to: BASE_PAY_TO,
        contract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      },
    ]);
    assert.equal(body.x402.pay_to, BASE_PAY_TO);
    assert.equal(body.x402.network, 'eip155:84532');
  });

  it('reports the configured minimum in the payment options', async () => {
    const body = (
      await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })
    ).json();
    assert.equal(body.min_amount_usd, 10);
    assert.deepEqual(body.x402.accepted_networks, ['base']);
  });
});

describe('x402 requirements on Solana devnet, and without any network', () => {
  it('quotes the devnet USDC mint', async () => {
    const t = await startApp({ env: { CELLGATE_X402_SOLANA_PAY_TO: SOLANA_PAY_TO, CELLGATE_X402_TESTNET: 'true' } });
    try {
      const org = await verifiedOrganization(t);
      const body = (
        await t.app.inject({
          method: 'GET',
          url: '/v1/billing/x402/requirements?intent=top_up&amount_usd=5',
          headers: org.headers,
        })
      ).json();
      assert.deepEqual(body.x402.quotes, [
        {
          network: 'solana',
          caip2_network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
          asset: 'USDC',
          pay_to: SOLANA_PAY_TO,
          mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
        },
      ]);
      assert.equal(body.x402.network, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    } finally {
      await t.close();
    }
  });

  it('answers the card rail alone, without x402, when no seller address is configured', async () => {
    const t = await startApp();
    try {
      const org = await verifiedOrganization(t);
      const body = (
        await t.app.inject({ method: 'GET', url: '/v1/billing/x402/requirements?intent=setup', headers: org.headers })
      ).json();
      assert.deepEqual(body.rails, ['card_processor']);
      assert.equal(body.x402, undefined);
      const options = (
        await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })
      ).json();
      assert.deepEqual(options.rails, ['card_processor']);
      assert.equal(options.x402, undefined);
    } finally {
      await t.close();
    }
  });
});

describe('payer wallets', () => {
  const t = useApp();
  let org: Org;
  before(async () => {
    org = await verifiedOrganization(t);
  });

  const register = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/billing/x402/wallets', headers: org.headers, payload });

  it('registers a checksummed Base wallet with 201 and lists it', async () => {
    const response = await register({
      network: 'base',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      label: 'treasury',
    });
    assert.equal(response.statusCode, 201);
    const wallet = response.json();
    assert.match(wallet.wallet_id, /^wal_/);
    assert.deepEqual(wallet, {
      wallet_id: wallet.wallet_id,
      organization_id: org.organizationId,
      network: 'base',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      label: 'treasury',
      created_at: t.clock.now().toISOString(),
      verification: { status: 'unverified', message: wallet.verification.message },
    });
    const list = (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets', headers: org.headers })).json();
    assert.deepEqual(list.wallets, [wallet]);
  });

  it('stores an all-lowercase EVM address in its checksummed form, and answers a repeat with 200', async () => {
    const response = await register({ network: 'base', address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359' });
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().address, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
    assert.equal('label' in response.json(), false);
    const again = await register({ network: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().wallet_id, response.json().wallet_id);
  });

  it('registers a Solana wallet', async () => {
    const response = await register({ network: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' });
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().network, 'solana');
  });

  it('removes a wallet with 204 and no body', async () => {
    const created = (await register({ network: 'solana', address: '11111111111111111111111111111111' })).json();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/v1/billing/x402/wallets/${created.wallet_id}`,
      headers: org.headers,
    });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    const list = (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/wallets', headers: org.headers })).json();
    assert.equal(
      list.wallets.some((w: { wallet_id: string }) => w.wallet_id === created.wallet_id),
      false,
    );
  });
});

describe('billing off', () => {
  it('answers exempt and nothing due, while quotes, wallets and payment options still answer', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off', CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
    try {
      const org = await verifiedOrganization(t);
      const status = (await t.app.inject({ method: 'GET', url: '/v1/billing/status', headers: org.headers })).json();
      assert.equal(status.state, 'exempt');
      assert.equal(status.amount_due_usd, 0);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/v1/billing/x402/requirements?intent=setup', headers: org.headers }))
          .statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/v1/billing/payment-options', headers: org.headers })).statusCode,
        200,
      );
      const wallet = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/wallets',
        headers: org.headers,
        payload: { network: 'base', address: BASE_PAY_TO },
      });
      assert.equal(wallet.statusCode, 201);
    } finally {
      await t.close();
    }
  });
});
