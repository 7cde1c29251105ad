// Billing and usage routes of the customer surface (contract §7; the billing part of the service
// interface field for field).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { NETWORKS } from './networks.ts';
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
import { INTENTS } from './lifecycle.ts';
import type { BillingQuotes } from './quotes.ts';
import type { BillingService } from './service.ts';
import { USAGE_TYPES, type UsageService } from './usage.ts';
import type { WalletsService } from './wallets.ts';

const BILLING = ['Billing'];
const USAGE = ['Usage'];

export const Range = {
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

/** The raw text of a query parameter: amounts are checked on their text (no exponent, 2 decimals). */
function rawQuery(url: string, name: string): string | undefined {
  return new URL(url, 'http://localhost').searchParams.get(name) ?? undefined;
}

export function registerBillingRoutes(
  app: App,
  deps: { billing: BillingService; quotes: BillingQuotes; wallets: WalletsService; usage: UsageService },
): void {
  const { billing, quotes, wallets, usage } = deps;
  app.get(
    '/v1/billing/status',
    {
      config: { auth: 'agent', scope: 'billing:read', allowUnverified: true },
      schema: {
        operationId: 'getBillingStatus',
        tags: BILLING,
        summary: 'Billing state, tier, prepaid balance and amount due',
        response: { 200: Described(BillingStatus, 'The billing status of the organization.') },
      },
    },
    async (request) => billing.status(agentOf(request).organizationId),
  );

  app.get(
    '/v1/billing/payment-options',
    {
      config: { auth: 'agent', scope: 'billing:read', allowUnverified: true },
      schema: {
        operationId: 'getPaymentOptions',
        tags: BILLING,
        summary: 'Payment rails, prepaid balance and minimum payment',
        response: { 200: Described(PaymentOptions, 'The payment options of this deployment.') },
      },
    },
    async (request) => billing.paymentOptions(agentOf(request).organizationId),
  );

  app.get(
    '/v1/billing/x402/requirements',
    {
      config: { auth: 'agent', scope: 'billing:read', allowUnverified: true, errors: ['not_found', 'conflict'] },
      schema: {
        operationId: 'getX402Requirements',
        tags: BILLING,
        summary: 'What a payment intent costs, with an x402 quote per network',
        description:
          'setup: the first period of tier (default starter). renewal: the next period (tier + extra cells), or one cell-month with cell_id. top_up: amount_usd, at least min_amount_usd. reinstate: the amount due (409 unless past due or suspended). create_cell: one cell-month. network restricts the answer to one rail (400 when that rail is not configured).',
        querystring: Type.Object({
          intent: Type.Enum([...INTENTS]),
          tier: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
          cell_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          amount_usd: Type.Optional(Type.Number({ minimum: 0, description: 'Dollars, at most 2 decimals (top_up).' })),
          network: Type.Optional(Type.Enum([...NETWORKS])),
        }),
        response: { 200: Described(PaymentDetails, 'The payment that fulfils the intent.') },
      },
    },
    async (request) => {
      const { intent, tier, cell_id, network } = request.query;
      const amount = request.query.amount_usd === undefined ? undefined : rawQuery(request.url, 'amount_usd');
      return quotes.requirements(agentOf(request).organizationId, {
        intent,
        tier,
        cell_id,
        network,
        amount_usd: amount,
      });
    },
  );

  app.get(
    '/v1/billing/x402/wallets',
    {
      config: { auth: 'agent', scope: 'billing:read' },
      schema: {
        operationId: 'listX402Wallets',
        tags: BILLING,
        summary: 'List the payer wallets of the organization',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(X402WalletList, 'The payer wallets, newest first.') },
      },
    },
    async (request) => wallets.listWallets(agentOf(request).organizationId, request.query),
  );

  app.post(
    '/v1/billing/x402/wallets',
    {
      config: { auth: 'agent', scope: 'billing:write', errors: ['wallet_already_registered'] },
      schema: {
        operationId: 'createX402Wallet',
        tags: BILLING,
        summary: 'Register a payer wallet',
        description:
          'Registers an unverified claim of the wallet; its verification.message is what to sign (POST /v1/billing/x402/wallets/{wallet_id}/verify). ' +
          'Deposits from it are credited to the organization only once verified. 409 wallet_already_registered when another organization has verified the address; ' +
          'unverified claims never block. Registering a wallet the organization already claims returns it with 200.',
        body: Body(
          {
            network: Type.Enum([...NETWORKS]),
            address: Type.String({
              minLength: 1,
              maxLength: 128,
              description: 'base: 0x address (EIP-55 checksum when mixed case); solana: base58 public key.',
            }),
            label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          },
          {
            examples: [
              { network: 'base', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', label: 'agent treasury' },
            ],
          },
        ),
        response: {
          200: Described(X402Wallet, 'The wallet the organization registered earlier.'),
          201: Described(X402Wallet, 'The registered wallet.'),
        },
      },
    },
    async (request, reply) => {
      const { created, wallet } = await wallets.createWallet(agentOf(request).organizationId, request.body);
      return reply.code(created ? 201 : 200).send(wallet);
    },
  );

  app.post(
    '/v1/billing/x402/wallets/:wallet_id/verify',
    {
      config: { auth: 'agent', scope: 'billing:write', errors: ['not_found', 'wallet_already_registered'] },
      schema: {
        operationId: 'verifyX402Wallet',
        tags: BILLING,
        summary: 'Prove control of a payer wallet',
        description:
          "signature: the wallet key's signature of verification.message (base: 0x-hex EIP-191 personal_sign; solana: base58 ed25519 over the message's UTF-8 bytes). " +
          "The wallet is then verified: deposits from it are credited to this organization; other organizations' claims of the address stay unverified and receive nothing. " +
          "Verifying a verified wallet again answers it with 200. 400 invalid_signature when the signature is not the key's; 409 wallet_already_registered when another organization verified the address first.",
        params: IdParam('wallet_id', 'wal'),
        body: Body(
          { signature: Type.String({ minLength: 1, maxLength: 256 }) },
          { examples: [{ signature: `0x${'1b'.repeat(65)}` }] },
        ),
        response: { 200: Described(X402Wallet, 'The wallet, verified.') },
      },
    },
    async (request) =>
      wallets.verifyWallet(agentOf(request).organizationId, request.params.wallet_id, request.body.signature),
  );

  app.delete(
    '/v1/billing/x402/wallets/:wallet_id',
    {
      config: { auth: 'agent', scope: 'billing:write' },
      schema: {
        operationId: 'deleteX402Wallet',
        tags: BILLING,
        summary: 'Remove a payer wallet',
        params: IdParam('wallet_id', 'wal'),
        response: { 204: NoContent('Removed.') },
      },
    },
    async (request, reply) => {
      await wallets.deleteWallet(agentOf(request).organizationId, request.params.wallet_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/usage/summary',
    {
      config: { auth: 'agent', scope: 'usage:read' },
      schema: {
        operationId: 'getUsageSummary',
        tags: USAGE,
        summary: 'Usage totals by type over a period',
        querystring: Type.Object(Range),
        response: { 200: Described(UsageSummary, 'Totals of the period.') },
      },
    },
    async (request) => usage.summary(agentOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/usage/records',
    {
      config: { auth: 'agent', scope: 'usage:read' },
      schema: {
        operationId: 'listUsageRecords',
        tags: USAGE,
        summary: 'List usage records',
        querystring: Type.Object({
          ...PaginationQuery,
          ...Range,
          cell_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          type: Type.Optional(Type.Enum([...USAGE_TYPES])),
        }),
        response: { 200: Described(UsageRecordList, 'A page of usage records, newest first.') },
      },
    },
    async (request) => usage.records(agentOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/usage/daily',
    {
      config: { auth: 'agent', scope: 'usage:read' },
      schema: {
        operationId: 'getUsageDaily',
        tags: USAGE,
        summary: 'Usage totals per UTC day',
        querystring: Type.Object(Range),
        response: { 200: Described(UsageDaily, 'Totals per day with usage.') },
      },
    },
    async (request) => usage.daily(agentOf(request).organizationId, request.query),
  );
}
