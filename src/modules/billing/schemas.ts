// The response schemas of billing and usage, field for field as the service interface states them.
import { Type } from 'typebox';
import { pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { NETWORKS } from './networks.ts';
import { BILLING_STATES, INTENTS } from './lifecycle.ts';

const BASE_QUOTE = {
  network: 'base',
  caip2_network: 'eip155:8453',
  asset: 'USDC',
  pay_to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
};
const REQUIREMENTS_EXAMPLE = {
  schemes: ['exact'],
  networks: ['base'],
  accepted_networks: ['base'],
  quotes: [BASE_QUOTE],
  asset: 'USDC',
  pay_to: BASE_QUOTE.pay_to,
  network: 'eip155:8453',
};

export const X402Quote = Type.Object(
  {
    network: Type.Enum([...NETWORKS], { description: 'base or solana.' }),
    caip2_network: Type.String({ description: 'CAIP-2 chain id, e.g. eip155:8453.' }),
    asset: Type.String({ description: 'Asset symbol.' }),
    pay_to: Type.String({ description: 'Seller receive (deposit) address; never the payer wallet.' }),
    contract: Type.Optional(Type.String({ description: 'USDC token contract (base rail only).' })),
    mint: Type.Optional(Type.String({ description: 'USDC mint (solana rail only).' })),
    deposit_address_id: Type.Optional(
      Type.String({ description: 'Id of the deposit address at the payment processor.' }),
    ),
  },
  { $id: 'X402Quote', description: 'Where to pay on one network.', examples: [BASE_QUOTE] },
);

export const X402Requirements = Type.Object(
  {
    schemes: Type.Array(Type.String(), { description: 'x402 schemes accepted: exact.' }),
    networks: Type.Array(Type.Enum([...NETWORKS]), { description: 'Configured seller networks.' }),
    accepted_networks: Type.Array(Type.Enum([...NETWORKS]), { description: 'Networks quoted in this answer.' }),
    quotes: Type.Array(X402Quote),
    asset: Type.String({ description: 'USDC.' }),
    pay_to: Type.Optional(Type.String({ description: 'Present only when exactly one network is quoted.' })),
    network: Type.Optional(Type.String({ description: 'CAIP-2 id; present only when exactly one quote is returned.' })),
  },
  {
    $id: 'X402Requirements',
    description: 'The x402 rail: a quote per configured network (USDC, 6 decimals).',
    examples: [REQUIREMENTS_EXAMPLE],
  },
);

const RAILS = ['card_processor', 'x402', 'mpp'];
const PAYMENT_EXAMPLE = {
  amount_usd: '20.00',
  currency: 'USD',
  intent: 'setup',
  tier: 'starter',
  rails: ['card_processor', 'x402'],
  x402: REQUIREMENTS_EXAMPLE,
};

export const PaymentDetails = Type.Object(
  {
    amount_usd: Type.String({ description: 'Decimal amount in US dollars, e.g. "20.00".' }),
    currency: Type.String({ description: 'USD.' }),
    intent: Type.Enum([...INTENTS]),
    tier: Type.Optional(Type.String()),
    cell_id: Type.Optional(Type.String()),
    rails: Type.Array(Type.Enum(RAILS), {
      description: 'Rails that take this payment; card_processor is the card checkout.',
    }),
    checkout_url: Type.Optional(Type.String({ format: 'uri' })),
    x402: Type.Optional(X402Requirements),
    mpp: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    $id: 'PaymentDetails',
    description: 'What a payment intent costs and the rails that take it.',
    examples: [PAYMENT_EXAMPLE],
  },
);

export const PaymentOptions = Type.Object(
  {
    rails: Type.Optional(Type.Array(Type.String())),
    prepaid_balance_usd: Type.Optional(Type.Number({ description: 'The prepaid balance in dollars (a number).' })),
    min_amount_usd: Type.Optional(Type.Number({ description: 'The smallest payment accepted, in dollars.' })),
    x402: Type.Optional(X402Requirements),
    mpp: Type.Optional(Type.Object({}, { additionalProperties: true })),
    card_processor: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    $id: 'PaymentOptions',
    description: 'The rails this deployment takes, the prepaid balance and the minimum payment.',
    examples: [
      {
        rails: ['card_processor', 'x402'],
        prepaid_balance_usd: 12.5,
        min_amount_usd: 5,
        x402: REQUIREMENTS_EXAMPLE,
        card_processor: { provider: 'local' },
      },
    ],
  },
);

export const WALLET_EXAMPLE = {
  wallet_id: 'wal_01jdx4c5d6e7f8g9h0j1k2m3n4',
  organization_id: 'org_01jdx3m6q9k8v2c4n7r5t0w1yz',
  network: 'base',
  address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  label: 'agent treasury',
  created_at: '2026-11-21T12:00:00.000Z',
  verification: {
    status: 'unverified',
    message:
      'Cellgate wallet verification\norganization: org_01jdx3m6q9k8v2c4n7r5t0w1yz\nnetwork: base\naddress: 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\nnonce: 3q2-7wEAAQIDBAUGBwgJCgsM',
  },
};

export const WalletVerification = Type.Object(
  {
    status: Type.Enum(['unverified', 'verified'], {
      description: 'Only a verified wallet receives deposits; unverified until POST .../verify.',
    }),
    message: Type.String({
      description: 'The exact text to sign: EIP-191 personal_sign on base, ed25519 over its UTF-8 bytes on solana.',
    }),
    verified_at: Type.Optional(Timestamp),
  },
  {
    $id: 'X402WalletVerification',
    description: 'Whether the organization proved control of the wallet, and the message that proves it.',
  },
);

export const X402Wallet = Type.Object(
  {
    wallet_id: Type.String({ description: 'wal_... id' }),
    organization_id: Type.String(),
    network: Type.Enum([...NETWORKS]),
    address: Type.String({ description: 'Payer wallet address (EIP-55 checksummed on base); not the seller pay_to.' }),
    label: Type.Optional(Type.String()),
    created_at: Timestamp,
    verification: WalletVerification,
  },
  { $id: 'X402Wallet', description: 'An agent payer wallet linked to the organization.', examples: [WALLET_EXAMPLE] },
);

export const X402WalletList = pageOf(
  'wallets',
  X402Wallet,
  'X402WalletList',
  'The payer wallets of the organization.',
  WALLET_EXAMPLE,
);

const STATUS_EXAMPLE = {
  state: 'active',
  tier: 'starter',
  prepaid_balance_usd: 12.5,
  current_period_end: '2026-12-21T12:00:00.000Z',
  amount_due_usd: 0,
  cells: { included: 1, active: 1 },
};

export const BillingStatus = Type.Object(
  {
    state: Type.Enum([...BILLING_STATES, 'exempt'], { description: 'exempt when billing is off on this deployment.' }),
    tier: Nullable(Type.String()),
    prepaid_balance_usd: Type.Number({ description: 'The sum of the ledger, in dollars.' }),
    current_period_end: Nullable(Timestamp),
    amount_due_usd: Type.Number({ description: 'The renewal owed when past due or suspended, in dollars; else 0.' }),
    cells: Type.Object({ included: Type.Integer(), active: Type.Integer({ description: 'Cells not released.' }) }),
  },
  { $id: 'BillingStatus', description: 'The billing state of the organization.', examples: [STATUS_EXAMPLE] },
);

const USAGE_EXAMPLE = {
  id: 'usg_01jdx4c5d6e7f8g9h0j1k2m3n4',
  type: 'sms',
  cell_id: 'cell_01jdx4c5d6e7f8g9h0j1k2m3n4',
  message_id: 'msg_01jdx4c5d6e7f8g9h0j1k2m3n4',
  quantity: 2,
  unit_price_usd: '0.01',
  amount_usd: '0.02',
  created_at: '2026-11-21T12:00:00.000Z',
};

const UsageRecord = Type.Object(
  {
    id: Type.String({ description: 'usg_... id' }),
    type: Type.String({ description: 'sms (quantity = segments), mms, cell_month.' }),
    cell_id: Nullable(Type.String()),
    message_id: Nullable(Type.String()),
    quantity: Type.Integer(),
    unit_price_usd: Type.String(),
    amount_usd: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'UsageRecord', description: 'One billable unit with its price.', examples: [USAGE_EXAMPLE] },
);

export const UsageRecordList = pageOf(
  'usage_records',
  UsageRecord,
  'UsageRecordList',
  'A page of usage records.',
  USAGE_EXAMPLE,
);

const TypeTotal = Type.Object({
  type: Type.String(),
  quantity: Type.Integer(),
  records: Type.Integer(),
  amount_usd: Type.String(),
});

export const UsageSummary = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    amount_usd: Type.String(),
    by_type: Type.Array(TypeTotal),
  },
  {
    $id: 'UsageSummary',
    description: 'Usage totals of a period [from, to).',
    examples: [
      {
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-12-01T00:00:00.000Z',
        amount_usd: '0.02',
        by_type: [{ type: 'sms', quantity: 2, records: 1, amount_usd: '0.02' }],
      },
    ],
  },
);

export const UsageDaily = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    days: Type.Array(
      Type.Object({
        date: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
        amount_usd: Type.String(),
        by_type: Type.Array(Type.Object({ type: Type.String(), quantity: Type.Integer(), amount_usd: Type.String() })),
      }),
    ),
  },
  {
    $id: 'UsageDaily',
    description: 'Usage totals per UTC day of a period [from, to); days without usage are left out.',
    examples: [
      {
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-12-01T00:00:00.000Z',
        days: [{ date: '2026-11-21', amount_usd: '0.02', by_type: [{ type: 'sms', quantity: 2, amount_usd: '0.02' }] }],
      },
    ],
  },
);

const ORG_EXAMPLE = {
  id: 'org_01jdx3m6q9k8v2c4n7r5t0w1yz',
  name: 'Acme agents',
  email: 'ops@acme.example',
  status: 'active',
  billing_state: 'active',
  tier: 'starter',
  current_period_end: '2026-12-21T12:00:00.000Z',
  created_at: '2026-11-21T12:00:00.000Z',
  verified_at: '2026-11-21T12:01:00.000Z',
};

const { billing_state: _state, tier: _tier, current_period_end: _end, ...ORGANIZATION } = ORG_EXAMPLE;

const AdminOrganizationSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    status: Type.String({ description: 'Verification status: unverified, active, suspended.' }),
    billing_state: Type.String(),
    tier: Nullable(Type.String()),
    current_period_end: Nullable(Timestamp),
    created_at: Timestamp,
    verified_at: Nullable(Timestamp),
  },
  {
    $id: 'AdminOrganizationSummary',
    description: 'An organization as the operator lists it.',
    examples: [ORG_EXAMPLE],
  },
);

export const AdminOrganizationList = pageOf(
  'organizations',
  AdminOrganizationSummary,
  'AdminOrganizationList',
  'A page of organizations.',
  ORG_EXAMPLE,
);

export const AdminOrganization = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    status: Type.String(),
    created_at: Timestamp,
    verified_at: Nullable(Timestamp),
    billing: BillingStatus,
  },
  {
    $id: 'AdminOrganization',
    description: 'An organization with its billing status and prepaid balance.',
    examples: [{ ...ORGANIZATION, billing: STATUS_EXAMPLE }],
  },
);

/** The body of a request to pay an intent (card checkout, x402 pay, MPP pay). */
export const PaymentIntentFields = {
  intent: Type.Enum([...INTENTS]),
  tier: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  cell_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  amount_usd: Type.Optional(
    Type.Union([Type.String({ maxLength: 16 }), Type.Number()], {
      description:
        'Dollars with at most 2 decimals, at least min_amount_usd, e.g. "25.00": a top_up\'s amount, or a setup\'s starting balance (paid with the first period, kept on the prepaid balance).',
    }),
  ),
};

/**
 * What paying an intent over one protocol answers (x402, MPP): the payment, the intent, the amount
 * and the billing status after it. One named schema per protocol, each with its own description.
 */
export const PaidIntent = (options: { $id: string; protocol: string; paymentId: string }) =>
  Type.Object(
    {
      payment_id: Type.String({ description: options.paymentId }),
      intent: Type.Enum([...INTENTS]),
      amount_usd: Type.String(),
      billing: BillingStatus,
    },
    {
      $id: options.$id,
      description: `An intent paid over ${options.protocol}, with the billing status after it.`,
      examples: [
        {
          payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4',
          intent: 'top_up',
          amount_usd: '25.00',
          billing: { ...STATUS_EXAMPLE, prepaid_balance_usd: 25 },
        },
      ],
    },
  );

export const Checkout = Type.Object(
  {
    payment_id: Type.String({ description: 'pay_... id' }),
    checkout_url: Type.String({ format: 'uri', description: 'Open it to pay by card.' }),
    expires_at: Timestamp,
    amount_usd: Type.String(),
    currency: Type.String(),
    intent: Type.Enum([...INTENTS]),
    tier: Type.Optional(Type.String()),
    cell_id: Type.Optional(Type.String()),
  },
  {
    $id: 'Checkout',
    description: 'A card checkout for a payment intent.',
    examples: [
      {
        payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n4',
        checkout_url:
          'https://api.cellgate.example/v1/billing/checkout/pay_01jdx4c5d6e7f8g9h0j1k2m3n4?token=Qm9yZWRBcGVzQ2x1Yk1lbWJlcnNoaXA',
        expires_at: '2026-11-21T12:30:00.000Z',
        amount_usd: '20.00',
        currency: 'USD',
        intent: 'setup',
        tier: 'starter',
      },
    ],
  },
);
