// Test helpers for x402 deposits: the processor's webhook, signed as the processor signs it.
import { createHmac } from 'node:crypto';
import type { TestApp } from '../harness.ts';
import { BASE_PAY_TO } from './billing.ts';
import { baseKey } from './wallets.ts';

export const SECRET = 'deposit-secret-0123456789abcdef';
/** The default sender: a real key, so a test can prove control of it (test/support/wallets.ts). */
export const WALLET_KEY = baseKey();
export const WALLET = WALLET_KEY.address;
export const STRANGER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

let counter = 0;

/** Reports a deposit (defaults: $25 from WALLET to our Base pay_to), signed with SECRET unless `sign` says otherwise. */
export function deposit(
  t: TestApp,
  body: Record<string, unknown>,
  sign: { secret?: string; at?: number; header?: string } = {},
) {
  const payload = JSON.stringify({
    deposit_id: `dep-${++counter}`,
    network: 'base',
    from: WALLET,
    to: BASE_PAY_TO,
    amount: '25000000',
    transaction: `0xtx${counter}`,
    ...body,
  });
  const at = sign.at ?? Math.floor(t.clock.now().getTime() / 1000);
  const signature = createHmac('sha256', sign.secret ?? SECRET)
    .update(`${at}.${payload}`)
    .digest('hex');
  const header = sign.header ?? `t=${at},v1=${signature}`;
  return t.app.inject({
    method: 'POST',
    url: '/v1/billing/x402/deposits',
    headers: { 'content-type': 'application/json', 'x-cellgate-signature': header },
    payload,
  });
}
