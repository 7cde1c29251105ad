// Billing's agent-facing operations (src/operations): the billing status, payment options and
// requirements, the payer wallets and the usage, bound to REST routes (./routes.ts) and some to
// MCP tools (src/modules/mcp). The payment protocols' routes (x402, MPP, Stripe, checkout,
// deposits) stay plain routes: they are how a payment arrives, not operations of an agent.
import { Type, type TProperties } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Nullable } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import { DisplayName, TierQuery } from '../cells/schemas.ts';
import type { CheckoutService } from './checkout.ts';
import type { BillingEnforcement } from './enforcement.ts';
import { NETWORKS } from './networks.ts';
import type { BillingQuotes } from './quotes.ts';
import {
  Checkout,
  PaidIntent,
  PaymentIntentFields,
  BillingStatus,
  PaymentDetails,
  PaymentOptions,
  UsageDaily,
  UsageRecordList,
  UsageSummary,
  WALLET_EXAMPLE,
  X402Wallet,
  X402WalletList,
} from './schemas.ts';
import type { BillingService } from './service.ts';
import { USAGE_TYPES, type UsageService } from './usage.ts';
import type { WalletsService } from './wallets.ts';

const closed = <Fields extends TProperties>(fields: Fields) => Type.Object(fields, { additionalProperties: false });

const Range = {
  from: Type.Optional(
    Type.String({
      maxLength: 40,
      description: 'Start (inclusive): a date or ISO 8601 date-time. Default: 30 days before to.',
    }),
  ),
  to: Type.Optional(
    Type.String({ maxLength: 40, description: 'End (exclusive): a date or ISO 8601 date-time. Default: now.' }),
  ),
};

const UsageRecordsQuery = {
  ...PaginationQuery,
  ...Range,
  cell_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  type: Type.Optional(Type.Enum([...USAGE_TYPES])),
};

/** The requirements' query (REST documents amount_usd as a number: its route validates it so and passes its text). */
const RequirementsFields = {
  ...PaymentIntentFields,
  // Its text: amounts are checked as written (no exponent, at most 2 decimals).
  amount_usd: Type.Optional(
    Type.String({ minLength: 1, maxLength: 32, description: 'Dollars, at most 2 decimals (top_up).' }),
  ),
  network: Type.Optional(Type.Enum([...NETWORKS])),
};

const WalletFields = {
  network: Type.Enum([...NETWORKS]),
  address: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'base: 0x address (EIP-55 checksum when mixed case); solana: base58 public key.',
  }),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
};

const Signature = { signature: Type.String({ minLength: 1, maxLength: 256 }) };

const WalletId = { wallet_id: Type.String({ minLength: 1, maxLength: 64, description: 'wal_... id' }) };

/** What a paid action would take now (enforcement.ts ChargeQuote). */
export const ChargeQuote = Type.Object({
  amount_usd: Type.String({ description: 'What the action costs now, in dollars ("0.00" when covered).' }),
  currency: Type.Literal('USD'),
  covered_by: Type.Enum(['billing_off', 'included', 'cell_credit', 'balance', 'payment'], {
    description:
      'billing_off: nothing is charged; included: within the tier; cell_credit: a create_cell already paid; balance: taken from the prepaid balance; payment: a payment is needed first (see payment).',
  }),
  detail: Type.String(),
  payment: Nullable(PaymentDetails),
});

/** The answer of a paid tool called without confirm: true (contract §10, docs/mcp.md). */
export const ConfirmationRequired = {
  confirmation_required: Type.Optional(
    Type.Literal(true, { description: 'Nothing was done: call again with confirm: true to do it at this price.' }),
  ),
  quote: Type.Optional(ChargeQuote),
};

export interface BillingOperationDeps {
  billing: BillingService;
  quotes: BillingQuotes;
  wallets: WalletsService;
  usage: UsageService;
  enforcement: BillingEnforcement;
  checkout: CheckoutService;
}

export function billingOperations(deps: BillingOperationDeps) {
  const { billing, quotes, wallets, usage, checkout } = deps;
  // Readable before verification and while suspended: how to pay is what such an organization needs.
  const billingRead = {
    scope: 'billing:read',
    allowUnverified: true,
    idempotency: 'none',
    description: '',
  } as const;
  const walletWrite = { scope: 'billing:write', idempotency: 'none', description: '' } as const;
  const usageRead = { scope: 'usage:read', idempotency: 'none', description: '' } as const;
  const noInput = closed({});
  return {
    getBillingStatus: defineOperation({
      ...billingRead,
      name: 'get_billing_status',
      summary: 'Billing state, tier, prepaid balance and amount due',
      input: noInput,
      output: BillingStatus,
      run: (ctx) => billing.status(ctx.organizationId),
    }),
    getBilling: defineOperation({
      ...billingRead,
      name: 'get_billing',
      summary: 'Billing state, balance and how to pay, in one answer',
      input: noInput,
      output: Type.Object({ status: BillingStatus, payment_options: PaymentOptions }),
      run: async (ctx) => ({
        status: await billing.status(ctx.organizationId),
        payment_options: await billing.paymentOptions(ctx.organizationId),
      }),
    }),
    // What paying an intent takes, as the 402 of POST /v1/billing/x402/pay without a payment: the
    // PaymentDetails (checkout_url for a person; the x402 PaymentRequired where a network is configured).
    pay: defineOperation({
      name: 'pay',
      summary: 'What paying an intent takes',
      description: '',
      scope: 'billing:write',
      idempotency: 'none',
      errors: ['payment_required', 'not_found', 'conflict', 'billing_disabled'],
      input: closed(PaymentIntentFields),
      output: PaidIntent({ $id: 'PaidIntent', protocol: 'a rail', paymentId: 'pay_... id of the payment' }),
      run: async (ctx, input) => {
        throw await quotes.intentRequired(ctx.organizationId, input);
      },
    }),
    createCheckout: defineOperation({
      name: 'create_checkout',
      summary: 'Start a card checkout for a payment intent',
      description:
        'Prices the intent as GET /v1/billing/x402/requirements does; open checkout_url to pay. 400 when the amount passes CELLGATE_MAX_PAYMENT_USD; ' +
        '409 billing_disabled when billing is off, 409 conflict when the deployment has no card processor (CELLGATE_CARD_PROCESSOR=off) or the payment would take the prepaid balance past 1,000,000,000.00.',
      scope: 'billing:write',
      idempotency: 'none',
      status: 201,
      errors: ['not_found', 'conflict', 'billing_disabled'],
      input: Type.Object(PaymentIntentFields, {
        additionalProperties: false,
        examples: [{ intent: 'top_up', amount_usd: '25.00' }],
      }),
      output: Checkout,
      // The amount is checked on its text, as written (a JSON number too).
      run: (ctx, { amount_usd, ...intent }) =>
        checkout.start(ctx.organizationId, {
          ...intent,
          amount_usd: amount_usd === undefined ? undefined : String(amount_usd),
        }),
    }),
    getPaymentOptions: defineOperation({
      ...billingRead,
      name: 'get_payment_options',
      summary: 'Payment rails, prepaid balance and minimum payment',
      input: noInput,
      output: PaymentOptions,
      run: (ctx) => billing.paymentOptions(ctx.organizationId),
    }),
    getX402Requirements: defineOperation({
      ...billingRead,
      name: 'get_x402_requirements',
      summary: 'What a payment intent costs, with an x402 quote per network',
      description:
        'setup: the first period of tier (default starter). renewal: the next period (tier + extra cells), or one cell-month with cell_id. top_up: amount_usd, at least min_amount_usd. reinstate: the amount due (409 unless past due or suspended). create_cell: one cell-month. network restricts the answer to one rail (400 when that rail is not configured).',
      errors: ['not_found', 'conflict'],
      input: closed(RequirementsFields),
      output: PaymentDetails,
      run: (ctx, query) => quotes.requirements(ctx.organizationId, query),
    }),
    listX402Wallets: defineOperation({
      ...billingRead,
      name: 'list_x402_wallets',
      summary: 'List the payer wallets of the organization',
      input: closed(PaginationQuery),
      output: X402WalletList,
      run: (ctx, query) => wallets.listWallets(ctx.organizationId, query),
    }),
    createX402Wallet: defineOperation({
      ...walletWrite,
      name: 'create_x402_wallet',
      summary: 'Register a payer wallet',
      description:
        'Registers an unverified claim of the wallet; its verification.message is what to sign (POST /v1/billing/x402/wallets/{wallet_id}/verify). ' +
        'Deposits from it are credited to the organization only once verified. 409 wallet_already_registered when another organization has verified the address; ' +
        'unverified claims never block. Registering a wallet the organization already claims returns it with 200.',
      status: 201,
      errors: ['wallet_already_registered'],
      input: Type.Object(WalletFields, {
        additionalProperties: false,
        examples: [{ network: 'base', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', label: 'agent treasury' }],
      }),
      output: Type.Object({ created: Type.Boolean(), wallet: X402Wallet }),
      run: (ctx, input) => wallets.createWallet(ctx.organizationId, input),
    }),
    verifyX402Wallet: defineOperation({
      ...walletWrite,
      name: 'verify_x402_wallet',
      summary: 'Prove control of a payer wallet',
      description:
        "signature: the wallet key's signature of verification.message (base: 0x-hex EIP-191 personal_sign; solana: base58 ed25519 over the message's UTF-8 bytes). " +
        "The wallet is then verified: deposits from it are credited to this organization; other organizations' claims of the address stay unverified and receive nothing. " +
        "Verifying a verified wallet again answers it with 200. 400 invalid_signature when the signature is not the key's; 409 wallet_already_registered when another organization verified the address first.",
      errors: ['not_found', 'wallet_already_registered'],
      input: Type.Object(
        { ...WalletId, ...Signature },
        {
          additionalProperties: false,
          examples: [{ wallet_id: WALLET_EXAMPLE.wallet_id, signature: `0x${'1b'.repeat(65)}` }],
        },
      ),
      output: X402Wallet,
      run: (ctx, input) => wallets.verifyWallet(ctx.organizationId, input.wallet_id, input.signature),
    }),
    deleteX402Wallet: defineOperation({
      ...walletWrite,
      name: 'delete_x402_wallet',
      summary: 'Remove a payer wallet',
      status: 204,
      input: closed(WalletId),
      output: Type.Null(),
      run: async (ctx, input) => {
        await wallets.deleteWallet(ctx.organizationId, input.wallet_id);
        return null;
      },
    }),
    listUsageRecords: defineOperation({
      ...usageRead,
      name: 'list_usage_records',
      summary: 'List usage records',
      input: closed(UsageRecordsQuery),
      output: UsageRecordList,
      run: (ctx, query) => usage.records(ctx.organizationId, query),
    }),
    getUsageDaily: defineOperation({
      ...usageRead,
      name: 'get_usage_daily',
      summary: 'Usage totals per UTC day',
      input: closed(Range),
      output: UsageDaily,
      run: (ctx, query) => usage.daily(ctx.organizationId, query),
    }),
    quoteCreateCell: defineOperation({
      name: 'quote_create_cell',
      summary: 'What creating a cell would cost now',
      description: 'As create_cell decides it (setup, reinstate, included cell, paid cell), charging nothing.',
      scope: 'cells:write',
      idempotency: 'none',
      input: closed({ display_name: DisplayName, ...TierQuery }),
      output: ChargeQuote,
      run: (ctx, input) => deps.enforcement.cellQuote(ctx.organizationId, input.tier),
    }),
    getUsage: defineOperation({
      ...usageRead,
      name: 'get_usage',
      summary: 'Usage totals by type over a period',
      description:
        'What the organization used (messages, cell-months) and what it cost, by type, over [from, to) (default: the last 30 days).',
      input: closed(Range),
      output: UsageSummary,
      run: (ctx, query) => usage.summary(ctx.organizationId, query),
    }),
  };
}

export type BillingOperations = ReturnType<typeof billingOperations>;
