// Solana addresses are base58 (the full Bitcoin alphabet, `L` included) of exactly 32 bytes: real
// keys with an `L` or leading `1`s are taken, as a wallet and as the seller pay_to at start-up.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { base58 } from '@scure/base';
import { loadConfig } from '../../config.ts';
import { expectProblem, startApp, verifiedOrganization } from '../../../test/harness.ts';
import { canonicalAddress, decodeBase58 } from './networks.ts';

/** A real ed25519 public key whose base58 form contains an `L`. */
function keyWithL(): string {
  for (;;) {
    const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const address = base58.encode(raw);
    if (address.includes('L')) return address;
  }
}

const WITH_L = 'AZdXUaxDADepX3VYvLCxjErhzBcrqS4DA3s6e4y5etuC';
const LEADING_ONES = '11hESeAKvZiMSKaE2YiLjzPPu4sKTtsT3kQw9PQjt9D';
const SYSTEM_PROGRAM = '11111111111111111111111111111112';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('Solana addresses', () => {
  it('takes 32-byte keys with an L, with leading 1s, and the USDC mint', () => {
    for (const address of [WITH_L, keyWithL(), LEADING_ONES, SYSTEM_PROGRAM, USDC_MINT]) {
      assert.equal(canonicalAddress('solana', address), address, address);
    }
    assert.deepEqual(decodeBase58(LEADING_ONES)?.subarray(0, 2), Uint8Array.from([0, 0]));
  });

  it('refuses decodes of 31 and 33 bytes, characters outside base58 and the empty string', () => {
    const short = base58.encode(new Uint8Array(31).fill(7));
    const long = base58.encode(new Uint8Array(33).fill(7));
    for (const bad of [short, long, '0OIl', `${WITH_L.slice(0, -1)}0`, '', '3yZe7d'])
      assert.equal(canonicalAddress('solana', bad), null, bad);
    assert.equal(decodeBase58('0OIl'), null);
  });

  it('registers a Solana payer wallet whose address contains an L', async () => {
    const t = await startApp();
    try {
      const org = await verifiedOrganization(t);
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/billing/x402/wallets',
        headers: org.headers,
        payload: { network: 'solana', address: WITH_L },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().address, WITH_L);
      const short = base58.encode(new Uint8Array(31).fill(7));
      const refused = expectProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v1/billing/x402/wallets',
          headers: org.headers,
          payload: { network: 'solana', address: short },
        }),
        400,
        'invalid_request',
      );
      assert.equal(refused.errors[0].field, 'address');
    } finally {
      await t.close();
    }
  });
});

describe('CELLGATE_X402_SOLANA_PAY_TO', () => {
  it('accepts a pay-to address with an L and quotes it once started', async () => {
    assert.equal(loadConfig({ CELLGATE_X402_SOLANA_PAY_TO: WITH_L }).x402SolanaPayTo, WITH_L);
    const t = await startApp({ env: { CELLGATE_X402_SOLANA_PAY_TO: WITH_L } });
    try {
      const org = await verifiedOrganization(t);
      const options = await t.app.inject({ url: '/v1/billing/payment-options', headers: org.headers });
      assert.equal(options.json().x402.quotes[0].pay_to, WITH_L);
    } finally {
      await t.close();
    }
  });
});
