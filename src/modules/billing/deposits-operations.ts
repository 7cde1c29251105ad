// The operator's held x402 deposits as operator operations (src/operations); bound to REST, beside
// the payment processor's deposit webhook, in ./deposits-routes.ts.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Body, IdField, Nullable, Timestamp } from '../../http/schemas.ts';
import { defineOperatorOperation } from '../../operations/operation.ts';
import type { DepositsService } from './deposits.ts';
import { NETWORKS } from './networks.ts';

export const DEPOSIT_EXAMPLE = {
  id: 'dep_01jdx4c5d6e7f8g9h0j1k2m3n4',
  deposit_id: 'proc_dep_8812',
  network: 'base',
  from: '0x1111111111111111111111111111111111111111',
  to: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  amount_usd: '25.00',
  transaction: '0x5e1d…',
  status: 'credited',
  organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9',
  payment_id: 'pay_01jdx4c5d6e7f8g9h0j1k2m3n5',
  created_at: '2026-11-21T12:00:00.000Z',
  credited_at: '2026-11-21T12:00:00.000Z',
};

export const Deposit = Type.Object(
  {
    id: Type.String({ description: 'dep_... id' }),
    deposit_id: Type.String({ description: "The payment processor's id of the deposit." }),
    network: Type.Enum([...NETWORKS]),
    from: Type.String({ description: 'The sending wallet.' }),
    to: Type.String({ description: 'Our pay_to address.' }),
    amount_usd: Type.String(),
    transaction: Type.String(),
    status: Type.Enum(['credited', 'held'], {
      description: 'held: from a wallet no organization verified; the operator assigns it.',
    }),
    organization_id: Nullable(Type.String()),
    payment_id: Nullable(Type.String()),
    created_at: Timestamp,
    credited_at: Nullable(Timestamp),
  },
  { $id: 'X402Deposit', description: 'A deposit to a seller pay_to address.', examples: [DEPOSIT_EXAMPLE] },
);

export const DepositList = pageOf(
  'deposits',
  Deposit,
  'X402DepositList',
  'A page of deposits, newest first.',
  DEPOSIT_EXAMPLE,
);

/** A deposit as the payment processor's webhook reports it. */
export const DepositReport = Body(
  {
    deposit_id: Type.String({ minLength: 1, maxLength: 255 }),
    network: Type.Enum([...NETWORKS]),
    from: Type.String({ minLength: 1, maxLength: 128 }),
    to: Type.String({ minLength: 1, maxLength: 128 }),
    amount: Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'Atomic USDC units (6 decimals).' }),
    transaction: Type.String({ minLength: 1, maxLength: 255 }),
  },
  {
    examples: [
      {
        deposit_id: 'proc_dep_8812',
        network: 'base',
        from: DEPOSIT_EXAMPLE.from,
        to: DEPOSIT_EXAMPLE.to,
        amount: '25000000',
        transaction: '0x5e1d',
      },
    ],
  },
);

const DepositsQuery = { ...PaginationQuery, status: Type.Optional(Type.Enum(['credited', 'held'])) };
const AssignFields = {
  organization_id: Type.String({ minLength: 1, maxLength: 64 }),
  reason: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept in the operator audit log.' }),
  ),
};

/** The operator's deposit operations (src/operations): the service records an assignment in the audit log. */
export function depositOperations(deposits: DepositsService) {
  return {
    listDeposits: defineOperatorOperation({
      name: 'admin_list_deposits',
      summary: 'List x402 deposits (held ones wait for an organization)',
      description: '',
      input: Type.Object(DepositsQuery),
      output: DepositList,
      run: (_ctx, input) => deposits.list(input.status, input),
    }),
    assignDeposit: defineOperatorOperation({
      name: 'admin_assign_deposit',
      summary: 'Credit a held deposit to an organization',
      description: '',
      errors: ['conflict'],
      input: Body({ id: IdField('dep'), ...AssignFields }),
      output: Deposit,
      run: (ctx, input) =>
        deposits.assign(input.id, input.organization_id, { actor: ctx.principal, reason: input.reason ?? null }),
    }),
  };
}

export type DepositOperations = ReturnType<typeof depositOperations>;
