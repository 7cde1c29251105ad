// Test helpers for payer wallets with real keys: a viem account on Base (EIP-191 personal_sign), a
// node:crypto ed25519 key pair on Solana (its raw public key in base58 is the address).
import { generateKeyPairSync, sign } from 'node:crypto';
import { base58 } from '@scure/base';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { TestApp } from '../harness.ts';

export interface WalletKey {
  network: 'base' | 'solana';
  address: string;
  /** The signature of `message` by this key, as the verify route takes it. */
  sign(message: string): Promise<string>;
}

export function baseKey(): WalletKey {
  const account = privateKeyToAccount(generatePrivateKey());
  return { network: 'base', address: account.address, sign: (message) => account.signMessage({ message }) };
}

export function solanaKey(): WalletKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  // The raw key is the last 32 bytes of the DER SubjectPublicKeyInfo.
  const address = base58.encode(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
  return {
    network: 'solana',
    address,
    sign: async (message) => base58.encode(sign(null, Buffer.from(message, 'utf8'), privateKey)),
  };
}

export const registerWallet = (
  t: TestApp,
  headers: Record<string, string>,
  key: Pick<WalletKey, 'network' | 'address'>,
) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/billing/x402/wallets',
    headers,
    payload: { network: key.network, address: key.address },
  });

export const verifyWallet = (t: TestApp, headers: Record<string, string>, walletId: string, signature: string) =>
  t.app.inject({ method: 'POST', url: `/v1/billing/x402/wallets/${walletId}/verify`, headers, payload: { signature } });

/** Registers `key`'s wallet and proves control of it; the verified wallet. */
export async function verifiedWallet(t: TestApp, headers: Record<string, string>, key: WalletKey = baseKey()) {
  const registered = await registerWallet(t, headers, key);
  if (registered.statusCode !== 201 && registered.statusCode !== 200)
    throw new Error(`register failed: ${registered.statusCode} ${registered.body}`);
  const wallet = registered.json();
  const verified = await verifyWallet(t, headers, wallet.wallet_id, await key.sign(wallet.verification.message));
  if (verified.statusCode !== 200) throw new Error(`verify failed: ${verified.statusCode} ${verified.body}`);
  return verified.json();
}
