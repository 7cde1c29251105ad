// Proof of control of a payer wallet (contract §7): the organization signs a message that binds
// it, the network, the address and a random nonce of this claim (so it is unguessable and useless
// for any other claim), with the wallet's key: EIP-191 personal_sign on Base (an EOA; checked with
// viem's verifyMessage, imported on first use: viem is heavy at start), ed25519 over the message's
// UTF-8 bytes on Solana (checked with node:crypto against the address's 32 raw key bytes).
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { decodeBase58, type Network } from './networks.ts';

/** A fresh nonce for a claim: 144 random bits. */
export const verificationNonce = () => randomBytes(18).toString('base64url');

export function verificationMessage(claim: {
  organization_id: string;
  network: Network;
  address: string;
  verification_nonce: string | null;
}): string {
  return [
    'Cellgate wallet verification',
    `organization: ${claim.organization_id}`,
    `network: ${claim.network}`,
    `address: ${claim.address}`,
    `nonce: ${claim.verification_nonce ?? ''}`,
  ].join('\n');
}

export type ProofResult = 'valid' | 'invalid' | 'malformed';

/** What a signature must look like on each network (the 400's message). */
export const SIGNATURE_FORMAT: Record<Network, string> = {
  base: 'signature must be the 0x-hex 65-byte EIP-191 personal_sign signature of the message.',
  solana: "signature must be the base58 64-byte ed25519 signature of the message's UTF-8 bytes.",
};

// The DER prefix of an ed25519 SubjectPublicKeyInfo: the 32 raw key bytes follow it.
const ED25519_SPKI = Buffer.from('302a300506032b6570032100', 'hex');

/** Whether `signature` proves that the holder of `address`'s key signed `message`. */
export async function checkProof(
  network: Network,
  address: string,
  message: string,
  signature: string,
): Promise<ProofResult> {
  if (network === 'base') {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return 'malformed';
    const { verifyMessage } = await import('viem');
    const valid = await verifyMessage({
      address: address as `0x${string}`,
      message,
      signature: signature as `0x${string}`,
    }).catch(() => false);
    return valid ? 'valid' : 'invalid';
  }
  const bytes = decodeBase58(signature);
  if (!bytes || bytes.length !== 64) return 'malformed';
  const key = decodeBase58(address);
  if (!key || key.length !== 32) return 'invalid';
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI, key]), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(message, 'utf8'), publicKey, bytes) ? 'valid' : 'invalid';
  } catch {
    // An address that is not a point on the curve (a program-derived address) cannot sign.
    return 'invalid';
  }
}
