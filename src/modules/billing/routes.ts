// Billing and usage routes of the customer surface (contract §7; the billing part of the service
// interface field for field), bound from billing's operations (./operations.ts).
import { Type } from 'typebox';
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { BillingOperations } from './operations.ts';
import {
  BillingStatus,
  PaymentDetails,
  PaymentOptions,
  UsageDaily,
  UsageRecordList,
  UsageSummary,
  X402Wallet,
  X402WalletList,
} from './schemas.ts';
import type { WalletView } from './wallets.ts';

const BILLING = ['Billing'];
const USAGE = ['Usage'];

/** The raw text of a query parameter: amounts are checked on their text (no exponent, 2 decimals). */
function rawQuery(url: string, name: string): string | undefined {
  return new URL(url, 'http://localhost').searchParams.get(name) ?? undefined;
}

export function registerBillingRoutes(app: App, rest: RestBinder, ops: BillingOperations): void {
  rest.bind(app, ops.getBillingStatus, {
    method: 'GET',
    url: '/v1/billing/status',
    tags: BILLING,
    response: Described(BillingStatus, 'The billing status of the organization.'),
  });

  rest.bind(app, ops.getPaymentOptions, {
    method: 'GET',
    url: '/v1/billing/payment-options',
    tags: BILLING,
    response: Described(PaymentOptions, 'The payment options of this deployment.'),
  });

  rest.bind(app, ops.getX402Requirements, {
    method: 'GET',
    url: '/v1/billing/x402/requirements',
    tags: BILLING,
    response: Described(PaymentDetails, 'The payment that fulfils the intent.'),
    // Validated as a number, taken as written.
    as: {
      amount_usd: Type.Optional(Type.Number({ minimum: 0, description: 'Dollars, at most 2 decimals (top_up).' })),
    },
    input: (fields, request) => ({
      ...fields,
      amount_usd: fields.amount_usd === undefined ? undefined : rawQuery(request.url, 'amount_usd'),
    }),
  });

  rest.bind(app, ops.listX402Wallets, {
    method: 'GET',
    url: '/v1/billing/x402/wallets',
    tags: BILLING,
    response: Described(X402WalletList, 'The payer wallets, newest first.'),
  });

  rest.bind(app, ops.createX402Wallet, {
    method: 'POST',
    url: '/v1/billing/x402/wallets',
    tags: BILLING,
    response: Described(X402Wallet, 'The registered wallet.'),
    responses: { 200: Described(X402Wallet, 'The wallet the organization registered earlier.') },
    answer: ({ created, wallet }: { created: boolean; wallet: WalletView }) => ({
      body: wallet,
      status: created ? 201 : 200,
    }),
  });

  rest.bind(app, ops.verifyX402Wallet, {
    method: 'POST',
    url: '/v1/billing/x402/wallets/:wallet_id/verify',
    tags: BILLING,
    response: Described(X402Wallet, 'The wallet, verified.'),
  });

  rest.bind(app, ops.deleteX402Wallet, {
    method: 'DELETE',
    url: '/v1/billing/x402/wallets/:wallet_id',
    tags: BILLING,
    response: NoContent('Removed.'),
  });

  rest.bind(app, ops.getUsage, {
    method: 'GET',
    url: '/v1/usage/summary',
    operationId: 'getUsageSummary',
    tags: USAGE,
    // The REST document has no description here (the tool's is the operation's).
    description: '',
    response: Described(UsageSummary, 'Totals of the period.'),
  });

  rest.bind(app, ops.listUsageRecords, {
    method: 'GET',
    url: '/v1/usage/records',
    tags: USAGE,
    response: Described(UsageRecordList, 'A page of usage records, newest first.'),
  });

  rest.bind(app, ops.getUsageDaily, {
    method: 'GET',
    url: '/v1/usage/daily',
    tags: USAGE,
    response: Described(UsageDaily, 'Totals per day with usage.'),
  });
}
