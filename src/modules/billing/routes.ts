// Billing and usage routes of the customer surface (contract §7; the billing part of the service
// interface field for field), bound from billing's operations (./operations.ts).
import { Type } from 'typebox';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { BillingOperations } from './operations.ts';
import { X402Wallet } from './schemas.ts';
import type { WalletView } from './wallets.ts';

/** The raw text of a query parameter: amounts are checked on their text (no exponent, 2 decimals). */
function rawQuery(url: string, name: string): string | undefined {
  return new URL(url, 'http://localhost').searchParams.get(name) ?? undefined;
}

export function registerBillingRoutes(app: App, rest: RestBinder, ops: BillingOperations): void {
  const billing = restRoutes(app, rest, ['Billing']);
  const wallets = '/v1/billing/x402/wallets';
  billing(ops.getBillingStatus, 'GET', '/v1/billing/status', 'The billing status of the organization.');
  billing(ops.getPaymentOptions, 'GET', '/v1/billing/payment-options', 'The payment options of this deployment.');
  billing(ops.getX402Requirements, 'GET', '/v1/billing/x402/requirements', 'The payment that fulfils the intent.', {
    // Validated as a number, taken as written.
    as: {
      amount_usd: Type.Optional(Type.Number({ minimum: 0, description: 'Dollars, at most 2 decimals (top_up).' })),
    },
    input: (fields, request) => ({
      ...fields,
      amount_usd: fields.amount_usd === undefined ? undefined : rawQuery(request.url, 'amount_usd'),
    }),
  });
  billing(ops.listX402Wallets, 'GET', wallets, 'The payer wallets, newest first.');
  billing(ops.createX402Wallet, 'POST', wallets, '', {
    response: Described(X402Wallet, 'The registered wallet.'),
    responses: { 200: Described(X402Wallet, 'The wallet the organization registered earlier.') },
    answer: ({ created, wallet }: { created: boolean; wallet: WalletView }) => ({
      body: wallet,
      status: created ? 201 : 200,
    }),
  });
  billing(ops.verifyX402Wallet, 'POST', `${wallets}/:wallet_id/verify`, 'The wallet, verified.');
  billing(ops.deleteX402Wallet, 'DELETE', `${wallets}/:wallet_id`, 'Removed.');
  const usage = restRoutes(app, rest, ['Usage']);
  // The REST document has no description here (the tool's is the operation's).
  usage(ops.getUsage, 'GET', '/v1/usage/summary', 'Totals of the period.', {
    operationId: 'getUsageSummary',
    description: '',
  });
  usage(ops.listUsageRecords, 'GET', '/v1/usage/records', 'A page of usage records, newest first.');
  usage(ops.getUsageDaily, 'GET', '/v1/usage/daily', 'Totals per day with usage.');
  billing(ops.createCheckout, 'POST', '/v1/billing/checkout', 'The checkout, open until expires_at.');
}
