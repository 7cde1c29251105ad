// The x402 rails: USDC on Base and on Solana (mainnets, or their testnets), and the validation of
// addresses on each (an EIP-55 checksummed EVM address; a base58 32-byte Solana public key).
// ox is viem's own address code, without the rest of viem (about 30 MB less memory at start).
import * as Address from 'ox/Address';

export const NETWORKS = ['base', 'solana'] as const;
export type Network = (typeof NETWORKS)[number];

interface Chain {
  caip2: string;
  /** The USDC token: an ERC-20 contract on Base, an SPL mint on Solana. */
  token: string;
  /** The token's EIP-712 domain (name, version), which x402's exact scheme signs over on EVM. */
  eip712?: { name: string; version: string };
}

const CHAINS: Record<'mainnet' | 'testnet', Record<Network, Chain>> = {
  mainnet: {
    base: { caip2: 'eip155:8453', token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712: { name: 'USD Coin', version: '2' } },
    solana: { caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', token: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
  },
  testnet: {
    base: { caip2: 'eip155:84532', token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', eip712: { name: 'USDC', version: '2' } },
    solana: { caip2: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', token: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' },
  },
};

export const ASSET = 'USDC';

export function chainOf(network: Network, testnet: boolean): Chain {
  return CHAINS[testnet ? 'testnet' : 'mainnet'][network];
}

const BASE58 = '123456789ABCDEFGHJKMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The bytes of a base58 string (Bitcoin alphabet), or null when it is not base58. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 128) return null;
  let value = 0n;
  for (const char of text) {
    const digit = BASE58.indexOf(char);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const char of text) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/**
 * The canonical form of an address on `network` (EIP-55 checksummed on Base), or null when it is
 * not a valid address there. A mixed-case EVM address must carry a correct checksum.
 */
export function canonicalAddress(network: Network, address: string): string | null {
  if (network === 'base') return Address.validate(address, { strict: true }) ? Address.checksum(address) : null;
  return decodeBase58(address)?.length === 32 ? address : null;
}
