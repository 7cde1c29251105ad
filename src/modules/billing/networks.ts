// The x402 rails: USDC on Base and on Solana (mainnets, or their testnets), and the validation of
// addresses on each (an EIP-55 checksummed EVM address; a base58 32-byte Solana public key,
// decoded by @scure/base: a hand-written alphabet once lacked `L` and refused half of them).
// ox is viem's own address code, without the rest of viem (about 30 MB less memory at start).
import type * as ScureBase from '@scure/base';
import type * as OxAddress from 'ox/Address';
import { onFirstUse } from '../../lib/on-first-use.ts';

export const NETWORKS = ['base', 'solana'] as const;
export type Network = (typeof NETWORKS)[number];

interface Chain {
  caip2: string;
  /** The USDC token: an ERC-20 contract on Base, an SPL mint on Solana. */
  token: string;
  /** The token's EIP-712 domain (name, version), which x402's exact scheme signs over on EVM. */
  eip712?: { name: string; version: string };
}

/** base58 (@scure/base), loaded on the first Solana address or key. */
const scureBase = onFirstUse<typeof ScureBase>('@scure/base');

/** EIP-55 checksums (ox), loaded on the first EVM address checked. */
export const oxAddress = onFirstUse<typeof OxAddress>('ox/Address');

const CHAINS: Record<'mainnet' | 'testnet', Record<Network, Chain>> = {
  mainnet: {
    base: {
      caip2: 'eip155:8453',
      token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      eip712: { name: 'USD Coin', version: '2' },
    },
    solana: { caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', token: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
  },
  testnet: {
    base: {
      caip2: 'eip155:84532',
      token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      eip712: { name: 'USDC', version: '2' },
    },
    solana: { caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', token: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' },
  },
};

export const ASSET = 'USDC';

export function chainOf(network: Network, testnet: boolean): Chain {
  return CHAINS[testnet ? 'testnet' : 'mainnet'][network];
}

/** The bytes of a base58 string (Bitcoin alphabet, @scure/base), or null when it is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 128) return null;
  try {
    return scureBase().base58.decode(text);
  } catch {
    return null;
  }
}

/** The base58 form of bytes (Solana keys and signatures). */
export const encodeBase58 = (bytes: Uint8Array): string => scureBase().base58.encode(bytes);

/**
 * The canonical form of an address on `network` (EIP-55 checksummed on Base), or null when it is
 * not a valid address there. A mixed-case EVM address must carry a correct checksum.
 */
export function canonicalAddress(network: Network, address: string): string | null {
  if (network === 'base') {
    const Address = oxAddress();
    return Address.validate(address, { strict: true }) ? Address.checksum(address) : null;
  }
  return decodeBase58(address)?.length === 32 ? address : null;
}
