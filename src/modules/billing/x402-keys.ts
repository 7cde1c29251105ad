// What makes an x402 payment payload one transfer, whatever else is changed around it (contract §7,
// "credited once, ever"): on EVM the payer and the authorization nonce (EIP-3009, or Permit2's),
// which the token contract lets through once; on Solana the signatures the payload carries and the
// digest of the signed message itself (every signature, the fee payer's included, signs the same
// message, so re-signing or filling an empty slot does not make a new transfer). Each key is
// recorded under a unique constraint when the payment is credited.
import { createHash } from 'node:crypto';
import { encodeBase58, oxAddress } from './networks.ts';

export interface SettlementKey {
  payer: string;
  reference: string;
}

/** The keys of a payload on a CAIP-2 network; null when it names no transfer we can tell apart. */
export function settlementKeys(network: string, payload: Record<string, unknown> | undefined): SettlementKey[] | null {
  if (!payload || typeof payload !== 'object') return null;
  if (network.startsWith('eip155:')) return evmKeys(payload);
  if (network.startsWith('solana:'))
    return typeof payload.transaction === 'string' ? solanaKeys(payload.transaction) : null;
  return null;
}

function evmKeys(payload: Record<string, unknown>): SettlementKey[] | null {
  const eip3009 = payload.authorization as { from?: unknown; nonce?: unknown } | undefined;
  if (eip3009 && typeof eip3009 === 'object') {
    const payer = evmAddress(eip3009.from);
    const nonce =
      typeof eip3009.nonce === 'string' && /^0x[0-9a-fA-F]{64}$/.test(eip3009.nonce)
        ? eip3009.nonce.toLowerCase()
        : null;
    return payer && nonce ? [{ payer, reference: nonce }] : null;
  }
  const permit2 = payload.permit2Authorization as { from?: unknown; nonce?: unknown } | undefined;
  if (permit2 && typeof permit2 === 'object') {
    const payer = evmAddress(permit2.from);
    const nonce =
      typeof permit2.nonce === 'string' && /^\d{1,78}$/.test(permit2.nonce) ? BigInt(permit2.nonce).toString() : null;
    return payer && nonce ? [{ payer, reference: `permit2:${nonce}` }] : null;
  }
  return null;
}

const evmAddress = (value: unknown) =>
  typeof value === 'string' && oxAddress().validate(value, { strict: false }) ? oxAddress().checksum(value) : null;

/** A compact-u16 (Solana's short vector length) at `at`: its value and the next offset. */
function shortVec(bytes: Buffer, at: number): [number, number] | null {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    if (at + i >= bytes.length) return null;
    const byte = bytes[at + i];
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return null;
}

/** A serialized Solana transaction (legacy or v0): its non-empty signatures with their signers, and its message digest. */
function solanaKeys(base64: string): SettlementKey[] | null {
  const bytes = Buffer.from(base64, 'base64');
  const count = shortVec(bytes, 0);
  if (!count || count[0] === 0) return null;
  const [signatures, afterCount] = count;
  const messageAt = afterCount + signatures * 64;
  if (messageAt >= bytes.length) return null;
  const message = bytes.subarray(messageAt);
  const header = message[0] & 0x80 ? 1 : 0; // a versioned message starts with its version byte
  const keys = shortVec(message, header + 3);
  if (!keys || keys[0] < signatures || keys[1] + keys[0] * 32 > message.length) return null;
  const found: SettlementKey[] = [];
  for (let i = 0; i < signatures; i++) {
    const signature = bytes.subarray(afterCount + i * 64, afterCount + (i + 1) * 64);
    if (signature.every((byte) => byte === 0)) continue; // a slot the facilitator fills (the fee payer's)
    const signer = message.subarray(keys[1] + i * 32, keys[1] + (i + 1) * 32);
    found.push({ payer: encodeBase58(signer), reference: encodeBase58(signature) });
  }
  if (found.length === 0) return null;
  // One row per key: a payload repeating a signature must not look like its own replay.
  found.splice(0, found.length, ...new Map(found.map((key) => [`${key.payer}:${key.reference}`, key])).values());
  found.push({ payer: 'message', reference: createHash('sha256').update(message).digest('hex') });
  return found;
}
