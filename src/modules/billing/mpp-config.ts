// CELLGATE_MPP_METHODS: the MPP payment methods this deployment takes, as JSON keyed by method
// name. One method is implemented: `tempo` (a TIP-20 stablecoin transfer on Tempo, proven by its
// transaction hash, the "push" mode of mppx's tempo charge):
//   {"tempo": {"recipient": "0x...", "testnet": false, "chain_id": 4217, "currency": "0x...", "rpc_url": "https://..."}}
// Only `recipient` is required; the others default to Tempo mainnet (chain 4217, USDC.e, the
// public RPC) or, with "testnet": true, to Moderato (chain 42431, pathUSD).
import { oxAddress } from './networks.ts';

export interface TempoMethodConfig {
  recipient: `0x${string}`;
  chainId: number;
  currency: `0x${string}`;
  rpcUrl: string;
  /** TIP-20 stablecoins have 6 decimals: one base unit is one micro-USD. */
  decimals: 6;
}

export interface MppMethods {
  tempo?: TempoMethodConfig;
}

export interface MppConfig {
  /** CELLGATE_MPP_SECRET: the HMAC key binding challenge ids to their contents. */
  secret: string;
  methods: MppMethods;
}

export const MPP_METHODS = ['tempo'] as const;

const TEMPO = {
  mainnet: { chainId: 4217, currency: '0x20C000000000000000000000b9537d11c60E8b50', rpcUrl: 'https://rpc.tempo.xyz' },
  testnet: {
    chainId: 42431,
    currency: '0x20c0000000000000000000000000000000000000',
    rpcUrl: 'https://rpc.moderato.tempo.xyz',
  },
} as const;
const TEMPO_FIELDS = ['recipient', 'testnet', 'chain_id', 'currency', 'rpc_url'];

export class MppConfigError extends Error {}

function address(value: unknown, field: string): `0x${string}` {
  if (typeof value !== 'string' || !oxAddress().validate(value))
    throw new MppConfigError(`${field} must be a 0x EVM address (EIP-55 checksum when mixed case)`);
  return oxAddress().checksum(value);
}

function tempo(raw: unknown): TempoMethodConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new MppConfigError('tempo must be an object with at least "recipient"');
  const fields = raw as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !TEMPO_FIELDS.includes(key));
  if (unknown) throw new MppConfigError(`tempo has an unknown field "${unknown}" (known: ${TEMPO_FIELDS.join(', ')})`);
  if (fields.testnet !== undefined && typeof fields.testnet !== 'boolean')
    throw new MppConfigError('tempo.testnet must be true or false');
  const net = fields.testnet ? TEMPO.testnet : TEMPO.mainnet;
  const chainId = fields.chain_id ?? net.chainId;
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0)
    throw new MppConfigError('tempo.chain_id must be a positive integer');
  const rpcUrl = fields.rpc_url ?? net.rpcUrl;
  if (typeof rpcUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(rpcUrl))
    throw new MppConfigError('tempo.rpc_url must be an http(s) URL');
  return {
    recipient: address(fields.recipient, 'tempo.recipient'),
    chainId,
    currency:
      fields.currency === undefined ? oxAddress().checksum(net.currency) : address(fields.currency, 'tempo.currency'),
    rpcUrl,
    decimals: 6,
  };
}

/** Parses CELLGATE_MPP_METHODS; throws MppConfigError with what is wrong (never the secret). */
export function parseMppMethods(text: string): MppMethods {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new MppConfigError('must be JSON, e.g. {"tempo": {"recipient": "0x..."}}');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new MppConfigError('must be a JSON object keyed by method name');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0) throw new MppConfigError('must name at least one method');
  const methods: MppMethods = {};
  for (const [name, value] of entries) {
    if (name !== 'tempo')
      throw new MppConfigError(`names an unknown method "${name}" (supported: ${MPP_METHODS.join(', ')})`);
    methods.tempo = tempo(value);
  }
  return methods;
}

/** The realm of our challenges: the host of the public base address. */
export const mppRealm = (baseUrl: string): string => new URL(baseUrl).host;

/** The `mpp` block of PaymentDetails and payment options: where and how to pay over MPP. */
export function mppSummary(config: MppConfig, baseUrl: string) {
  return {
    realm: mppRealm(baseUrl),
    methods: Object.keys(config.methods),
    pay_url: `${baseUrl}/v1/billing/mpp/pay`,
    discovery_url: `${baseUrl}/.well-known/mpp`,
  };
}
