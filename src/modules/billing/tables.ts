import type { Generated, Selectable, Updateable } from 'kysely';
import type { BillingState, Intent } from './lifecycle.ts';

export interface BillingAccountsTable {
  organization_id: string;
  state: BillingState;
  tier: string | null;
  current_period_end: string | null;
  /** The sum of the organization's ledger, kept with every ledger write (micro-USD). */
  prepaid_balance_micros: Generated<number | string>;
  /** Paid create_cell intents not yet consumed by a cell create. */
  cell_credits: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** An account row as read. */
export type BillingAccount = Selectable<BillingAccountsTable>;
export type BillingAccountUpdate = Updateable<BillingAccountsTable>;

export interface LedgerEntriesTable {
  id: Generated<number>;
  organization_id: string;
  kind: string;
  /** micro-USD; bigint, read back as a string on PostgreSQL. */
  amount_micros: number | string;
  reference: string | null;
  description: string | null;
  created_at: string;
}

export interface PaymentsTable {
  id: string;
  organization_id: string;
  rail: 'card_processor' | 'x402' | 'mpp';
  intent: Intent;
  tier: string | null;
  cell_id: string | null;
  amount_micros: number | string;
  status: 'pending' | 'succeeded';
  token_hash: string;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
  /** Who carries a card payment: the built-in local page (the default), or Stripe Checkout. */
  processor?: 'local' | 'stripe';
  /** The Stripe Checkout Session (cs_...) and its URL, once created (null otherwise). */
  external_id?: string | null;
  external_url?: string | null;
}

export type StripeEventOutcome = 'credited' | 'already_paid' | 'unpaid' | 'unknown_payment' | 'mismatch' | 'ignored';

/** Stripe webhook events received, by id: each is applied once. */
export interface StripeEventsTable {
  id: string;
  type: string;
  payment_id: string | null;
  outcome: StripeEventOutcome | null;
  received_at: string;
}

export interface X402WalletsTable {
  id: string;
  organization_id: string;
  network: 'base' | 'solana';
  address: string;
  label: string | null;
  created_at: string;
  /** The random part of the message the organization signs to prove control (wallet-proof.ts). */
  verification_nonce: string | null;
  /** When the organization proved control; only a verified wallet receives deposits. */
  verified_at: string | null;
}

/** A settled x402 payment, by payer and EIP-3009 nonce (Base) or transaction signature (Solana): credited once, ever. */
export interface X402SettlementsTable {
  /** CAIP-2 network id. */
  network: string;
  payer: string;
  reference: string;
  payment_id: string;
  organization_id: string;
  created_at: string;
}

export type UsageType = 'sms' | 'mms' | 'cell_month';

export interface UsageRecordsTable {
  id: string;
  organization_id: string;
  cell_id: string | null;
  message_id: string | null;
  type: UsageType;
  quantity: number;
  unit_price_micros: number | string;
  amount_micros: number | string;
  created_at: string;
}

export interface BillingOperatorActionsTable {
  id: Generated<number>;
  organization_id: string;
  action: 'suspend' | 'reinstate' | 'credit' | 'grant';
  reason: string;
  detail: string | null;
  admin_token_id: string;
  created_at: string;
}

export interface X402DepositsTable {
  id: string;
  deposit_id: string;
  network: 'base' | 'solana';
  from_address: string;
  to_address: string;
  amount_micros: number | string;
  transaction: string;
  status: 'credited' | 'held';
  organization_id: string | null;
  payment_id: string | null;
  created_at: string;
  credited_at: string | null;
}

/** An MPP credential accepted: its challenge and its proof each credit once. */
export interface MppCredentialsTable {
  challenge_id: string;
  reference: string;
  method: string;
  payment_id: string;
  organization_id: string;
  created_at: string;
}

export interface BillingTables {
  billing_accounts: BillingAccountsTable;
  ledger_entries: LedgerEntriesTable;
  payments: PaymentsTable;
  x402_wallets: X402WalletsTable;
  x402_settlements: X402SettlementsTable;
  x402_deposits: X402DepositsTable;
  usage_records: UsageRecordsTable;
  billing_operator_actions: BillingOperatorActionsTable;
  stripe_events: StripeEventsTable;
  mpp_credentials: MppCredentialsTable;
}
