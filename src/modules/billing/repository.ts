// The SQL of billing and usage, nothing else.
import { sql, type ExpressionBuilder, type InsertResult, type Kysely, type UpdateResult } from 'kysely';
import { isPostgres } from '../../db/migrations/dialect.ts';
import { prepared, preparedLists, preparedRows } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { CursorKey } from '../../lib/pagination.ts';
import { micros, type Micros } from './money.ts';
import type {
  BillingAccount,
  BillingAccountsTable,
  BillingAccountUpdate,
  BillingOperatorActionsTable,
  LedgerEntriesTable,
  MppCredentialsTable,
  PaymentsTable,
  StripeEventOutcome,
  StripeEventsTable,
  UsageRecordsTable,
  X402DepositsTable,
  X402WalletsTable,
} from './tables.ts';
import type { SettlementKey } from './x402-keys.ts';

export type UsageFilter = {
  organizationId: string;
  from: string;
  to: string;
  cellId?: string;
  type?: UsageRecordsTable['type'];
};

type LedgerRow = Omit<LedgerEntriesTable, 'id'>;

// Every column, checked by the compiler (the prepared inserts name each one; see db/prepared.ts).
const LEDGER_COLUMNS = Object.keys({
  organization_id: true,
  kind: true,
  amount_micros: true,
  reference: true,
  description: true,
  created_at: true,
} satisfies Record<keyof LedgerRow, true>) as (keyof LedgerRow)[];
const USAGE_COLUMNS = Object.keys({
  id: true,
  organization_id: true,
  cell_id: true,
  message_id: true,
  type: true,
  quantity: true,
  unit_price_micros: true,
  amount_micros: true,
  created_at: true,
} satisfies Record<keyof UsageRecordsTable, true>) as (keyof UsageRecordsTable)[];
const columnsOf = <Row extends object>(row: Row, columns: readonly (keyof Row)[]) =>
  Object.fromEntries(columns.map((column) => [column, row[column]])) as Row;

// Run in every batch of sends (billing/enforcement.ts): built and compiled once, not per batch.
const findAccounts = preparedLists((ex, p: { organizationIds: readonly string[] }) =>
  ex
    .selectFrom('billing_accounts')
    .select(['organization_id', 'state', 'tier', 'current_period_end', 'prepaid_balance_micros'])
    .where('organization_id', 'in', p.organizationIds),
);
const debitCovered = prepared((ex, p: { organizationId: string; micros: Micros }) =>
  ex
    .updateTable('billing_accounts')
    .set({ prepaid_balance_micros: sql`prepaid_balance_micros - ${p.micros}` })
    .where('organization_id', '=', p.organizationId)
    .where('prepaid_balance_micros', '>=', p.micros),
);
const insertLedger = preparedRows((ex, rows: LedgerRow[]) =>
  ex.insertInto('ledger_entries').values(rows.map((row) => columnsOf(row, LEDGER_COLUMNS))),
);
const insertUsageRecords = preparedRows((ex, rows: UsageRecordsTable[]) =>
  ex.insertInto('usage_records').values(rows.map((row) => columnsOf(row, USAGE_COLUMNS))),
);
/** A ledger row (its columns prefixed `ledger_`) and the usage record of the same charge, in one row of parameters. */
type LedgerPrefixed = { [Column in keyof LedgerRow as `ledger_${Column}`]: LedgerRow[Column] };
type ChargeRow = UsageRecordsTable & LedgerPrefixed;
// PostgreSQL: both inserts as one statement (a data-modifying WITH runs whether or not it is read).
const insertLedgerWithUsage = preparedRows((ex, rows: ChargeRow[]) =>
  ex
    .with('ledger', (db) =>
      db
        .insertInto('ledger_entries')
        .values(
          rows.map(
            (row) => Object.fromEntries(LEDGER_COLUMNS.map((column) => [column, row[`ledger_${column}`]])) as LedgerRow,
          ),
        )
        .returning('id'),
    )
    .insertInto('usage_records')
    .values(rows.map((row) => columnsOf(row, USAGE_COLUMNS))),
);

/** The row of an organization without one: inactive, no tier. */
const newAccount = (organizationId: string, now: string) =>
  ({
    organization_id: organizationId,
    state: 'inactive',
    tier: null,
    current_period_end: null,
    created_at: now,
    updated_at: now,
  }) as const;

const inserted = (result: InsertResult) => Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
const updated = (result: UpdateResult) => Number(result.numUpdatedRows) > 0;
const usageSums = (eb: ExpressionBuilder<DB, 'usage_records'>) => [
  eb.fn.sum<number | string>('quantity').as('quantity'),
  eb.fn.sum<number | string>('amount_micros').as('amount'),
];

export class BillingRepository {
  readonly db: Kysely<DB>;
  /** Row locks (SELECT ... FOR UPDATE) are PostgreSQL's; SQLite runs one write transaction at a time. */
  private readonly postgres: boolean;

  constructor(db: Kysely<DB>) {
    this.db = db;
    this.postgres = isPostgres(db);
  }

  account(ex: Executor, organizationId: string, lock = false): Promise<BillingAccount | undefined> {
    const query = ex.selectFrom('billing_accounts').selectAll().where('organization_id', '=', organizationId);
    return (lock && this.postgres ? query.forUpdate() : query).executeTakeFirst();
  }

  /** The account row, created inactive when missing, locked for the rest of the transaction on PostgreSQL. */
  async lockAccount(ex: Executor, organizationId: string, now: string): Promise<BillingAccount> {
    await ex
      .insertInto('billing_accounts')
      .values(newAccount(organizationId, now))
      .onConflict((oc) => oc.column('organization_id').doNothing())
      .execute();
    return (await this.account(ex, organizationId, true))!;
  }

  async updateAccount(
    ex: Executor,
    organizationId: string,
    values: Omit<BillingAccountUpdate, 'organization_id' | 'created_at'>,
  ): Promise<void> {
    await ex.updateTable('billing_accounts').set(values).where('organization_id', '=', organizationId).execute();
  }

  /** Active organizations whose paid period is over, and past-due ones whose grace is over. */
  dueAccounts(now: string, graceOver: string, limit: number): Promise<{ organization_id: string }[]> {
    return this.db
      .selectFrom('billing_accounts')
      .select('organization_id')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'active'), eb('current_period_end', '<=', now)]),
          eb.and([eb('state', '=', 'past_due'), eb('current_period_end', '<=', graceOver)]),
        ]),
      )
      .orderBy('current_period_end')
      .limit(limit)
      .execute();
  }

  async balance(ex: Executor, organizationId: string): Promise<Micros> {
    return micros((await this.account(ex, organizationId))?.prepaid_balance_micros ?? 0);
  }

  /** The accounts of these organizations (those that have one), in the caller's transaction. */
  async accountsAmong(ex: Executor, organizationIds: readonly string[]) {
    if (organizationIds.length === 0) return [];
    return (await findAccounts(ex, { organizationIds })).rows;
  }

  /**
   * Appends a ledger row and moves the balance by its amount; false when its reference was
   * already recorded (nothing written). The account row is created inactive when missing.
   */
  async appendLedger(ex: Executor, entry: Omit<LedgerEntriesTable, 'id'>): Promise<boolean> {
    const result = await ex
      .insertInto('ledger_entries')
      .values(entry)
      .onConflict((oc) => oc.column('reference').doNothing())
      .executeTakeFirst();
    if (!inserted(result)) return false;
    await ex
      .insertInto('billing_accounts')
      .values({ ...newAccount(entry.organization_id, entry.created_at), prepaid_balance_micros: entry.amount_micros })
      .onConflict((oc) =>
        oc.column('organization_id').doUpdateSet({
          prepaid_balance_micros: sql`billing_accounts.prepaid_balance_micros + excluded.prepaid_balance_micros`,
        }),
      )
      .execute();
    return true;
  }

  /**
   * Takes `micros` from the balance if it covers it; false (nothing changed) otherwise. The
   * condition is checked by the update itself, so concurrent debits never overdraw.
   */
  async debitIfCovered(ex: Executor, organizationId: string, amount: Micros): Promise<boolean> {
    const result = await debitCovered.execute(ex, { organizationId, micros: amount });
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  /** Ledger rows whose amounts are already applied to the balance (see debitIfCovered). */
  async insertLedgerRows(ex: Executor, entries: readonly LedgerRow[]): Promise<void> {
    if (entries.length > 0) await insertLedger(ex, entries);
  }

  ledgerByReference(ex: Executor, references: readonly string[]) {
    return ex
      .selectFrom('ledger_entries')
      .select(['organization_id', 'amount_micros', 'reference'])
      .where('reference', 'in', references)
      .execute();
  }

  /**
   * The ledger rows and usage records of charges, one each per charge (in the same order): one
   * statement on PostgreSQL (the send path's), two on SQLite.
   */
  async insertCharges(ex: Executor, ledger: readonly LedgerRow[], usage: readonly UsageRecordsTable[]): Promise<void> {
    if (!this.postgres || ledger.length === 0 || ledger.length !== usage.length) {
      await this.insertLedgerRows(ex, ledger);
      await this.insertUsage(ex, usage);
      return;
    }
    const prefixed = (entry: LedgerRow) =>
      Object.fromEntries(LEDGER_COLUMNS.map((column) => [`ledger_${column}`, entry[column]])) as LedgerPrefixed;
    await insertLedgerWithUsage(
      ex,
      usage.map((record, i) => ({ ...record, ...prefixed(ledger[i]!) })),
    );
  }

  async insertUsage(ex: Executor, records: readonly UsageRecordsTable[]): Promise<void> {
    if (records.length > 0) await insertUsageRecords(ex, records);
  }

  /** A refunded message is no longer billed: its usage record goes. */
  async deleteMessageUsage(ex: Executor, messageIds: readonly string[]): Promise<void> {
    await ex.deleteFrom('usage_records').where('message_id', 'in', messageIds).execute();
  }

  /** Consumes one paid create_cell credit; false when none is left. */
  consumeCellCredit(ex: Executor, organizationId: string): Promise<boolean> {
    return ex
      .updateTable('billing_accounts')
      .set({ cell_credits: sql`cell_credits - 1` })
      .where('organization_id', '=', organizationId)
      .where('cell_credits', '>', 0)
      .executeTakeFirst()
      .then(updated);
  }

  async addCellCredit(ex: Executor, organizationId: string): Promise<void> {
    await ex
      .updateTable('billing_accounts')
      .set({ cell_credits: sql`cell_credits + 1` })
      .where('organization_id', '=', organizationId)
      .execute();
  }

  async recordAction(ex: Executor, action: Omit<BillingOperatorActionsTable, 'id'>): Promise<void> {
    await ex.insertInto('billing_operator_actions').values(action).execute();
  }

  async insertPayment(payment: PaymentsTable, ex: Executor = this.db): Promise<void> {
    await ex.insertInto('payments').values(payment).execute();
  }

  payment(id: string, ex: Executor = this.db): Promise<PaymentsTable | undefined> {
    return ex.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The newest open x402 quote of this organization (for exactly this amount, when given). */
  openX402Payment(
    ex: Executor,
    organizationId: string,
    now: string,
    amountMicros?: Micros,
  ): Promise<PaymentsTable | undefined> {
    let query = ex
      .selectFrom('payments')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('rail', '=', 'x402')
      .where('status', '=', 'pending')
      .where('expires_at', '>', now);
    if (amountMicros !== undefined) query = query.where('amount_micros', '=', amountMicros);
    return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** Marks a pending payment succeeded; false when it was not pending (already credited). */
  completePayment(ex: Executor, id: string, now: string): Promise<boolean> {
    return ex
      .updateTable('payments')
      .set({ status: 'succeeded', completed_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst()
      .then(updated);
  }

  /**
   * The wallet claim whose columns have these values; with `verified`, only the verified one (an
   * organization proved control of it: one per network and address).
   */
  wallet(
    ex: Executor,
    match: Partial<Pick<X402WalletsTable, 'id' | 'organization_id' | 'network' | 'address'>>,
    verified = false,
  ): Promise<X402WalletsTable | undefined> {
    let query = ex.selectFrom('x402_wallets').selectAll();
    for (const [column, value] of Object.entries(match)) query = query.where(column as 'id', '=', value);
    if (verified) query = query.where('verified_at', 'is not', null);
    return query.executeTakeFirst();
  }

  /** Inserts the claim; false when this organization already claims that (network, address). */
  insertWallet(ex: Executor, wallet: X402WalletsTable): Promise<boolean> {
    return ex
      .insertInto('x402_wallets')
      .values(wallet)
      .onConflict((oc) => oc.columns(['organization_id', 'network', 'address']).doNothing())
      .executeTakeFirst()
      .then(inserted);
  }

  /** Marks the claim verified. A unique index allows one verified claim per (network, address): a second throws. */
  async verifyWallet(ex: Executor, walletId: string, now: string): Promise<void> {
    await ex
      .updateTable('x402_wallets')
      .set({ verified_at: now })
      .where('id', '=', walletId)
      .where('verified_at', 'is', null)
      .execute();
  }

  listWallets(organizationId: string, beforeId: string | null, count: number): Promise<X402WalletsTable[]> {
    let query = this.db.selectFrom('x402_wallets').selectAll().where('organization_id', '=', organizationId);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(count).execute();
  }

  deleteWallet(organizationId: string, walletId: string): Promise<boolean> {
    return this.db
      .deleteFrom('x402_wallets')
      .where('organization_id', '=', organizationId)
      .where('id', '=', walletId)
      .executeTakeFirst()
      .then((result) => Number(result.numDeletedRows) > 0);
  }

  private usage(filter: UsageFilter) {
    let query = this.db
      .selectFrom('usage_records')
      .where('organization_id', '=', filter.organizationId)
      .where('created_at', '>=', filter.from)
      .where('created_at', '<', filter.to);
    if (filter.cellId) query = query.where('cell_id', '=', filter.cellId);
    if (filter.type) query = query.where('type', '=', filter.type);
    return query;
  }

  listUsage(filter: UsageFilter, after: CursorKey | null, count: number): Promise<UsageRecordsTable[]> {
    let query = this.usage(filter).selectAll();
    if (after) {
      const [createdAt, id] = after.map(String);
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(count).execute();
  }

  usageByType(filter: UsageFilter) {
    return this.usage(filter)
      .select(['type'])
      .select((eb) => [...usageSums(eb), eb.fn.countAll<number | string>().as('records')])
      .groupBy('type')
      .execute();
  }

  usageByDay(filter: UsageFilter) {
    const day = sql<string>`substr(created_at, 1, 10)`;
    return this.usage(filter)
      .select([day.as('day'), 'type'])
      .select(usageSums)
      .groupBy([day, 'type'])
      .orderBy(day)
      .orderBy('type')
      .execute();
  }

  listOrganizations(filter: { state?: string; email?: string }, beforeId: string | null, count: number) {
    let query = this.db
      .selectFrom('organizations')
      .leftJoin('billing_accounts', 'billing_accounts.organization_id', 'organizations.id')
      .select([
        'organizations.id',
        'organizations.name',
        'organizations.email',
        'organizations.status',
        'organizations.created_at',
        'organizations.verified_at',
      ])
      .select(['billing_accounts.state', 'billing_accounts.tier', 'billing_accounts.current_period_end']);
    if (filter.email) query = query.where('organizations.email', '=', filter.email.toLowerCase());
    if (filter.state === 'inactive')
      query = query.where((eb) =>
        eb.or([eb('billing_accounts.state', '=', 'inactive'), eb('billing_accounts.state', 'is', null)]),
      );
    else if (filter.state)
      query = query.where('billing_accounts.state', '=', filter.state as BillingAccountsTable['state']);
    if (beforeId) query = query.where('organizations.id', '<', beforeId);
    return query.orderBy('organizations.id', 'desc').limit(count).execute();
  }

  // Stripe Checkout (stripe.ts).

  /** Records the Checkout Session of a payment once; false when it already has one. */
  setCheckoutSession(id: string, session: { id: string; url: string; expiresAt: string }): Promise<boolean> {
    return this.db
      .updateTable('payments')
      .set({ external_id: session.id, external_url: session.url, expires_at: session.expiresAt })
      .where('id', '=', id)
      .where('external_id', 'is', null)
      .executeTakeFirst()
      .then(updated);
  }

  /** Records a Stripe event id; false when it was already received (a replay). */
  insertStripeEvent(ex: Executor, event: StripeEventsTable): Promise<boolean> {
    return ex
      .insertInto('stripe_events')
      .values(event)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst()
      .then(inserted);
  }

  async setStripeEventOutcome(
    ex: Executor,
    id: string,
    outcome: StripeEventOutcome,
    paymentId: string | null,
  ): Promise<void> {
    await ex.updateTable('stripe_events').set({ outcome, payment_id: paymentId }).where('id', '=', id).execute();
  }

  // x402 settlement records (x402-keys.ts).

  /** Whether any of these keys was recorded by a settled payment. */
  async x402Settled(network: string, keys: readonly SettlementKey[]): Promise<boolean> {
    const row = await this.db
      .selectFrom('x402_settlements')
      .select('payment_id')
      .where('network', '=', network)
      .where((eb) =>
        eb.or(keys.map((key) => eb.and([eb('payer', '=', key.payer), eb('reference', '=', key.reference)]))),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records the keys of a settled payment; false when any was recorded before (a replay: the
   * caller rolls back). Concurrent inserts of one key wait for each other on the unique key.
   */
  async recordSettlement(
    ex: Executor,
    network: string,
    keys: readonly SettlementKey[],
    paid: { paymentId: string; organizationId: string; at: string },
  ): Promise<boolean> {
    const result = await ex
      .insertInto('x402_settlements')
      .values(
        keys.map((key) => ({
          network,
          payer: key.payer,
          reference: key.reference,
          payment_id: paid.paymentId,
          organization_id: paid.organizationId,
          created_at: paid.at,
        })),
      )
      .onConflict((oc) => oc.columns(['network', 'payer', 'reference']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === keys.length;
  }

  /** Records an accepted MPP credential; false when its challenge or its proof was recorded before. */
  recordMppCredential(ex: Executor, row: MppCredentialsTable): Promise<boolean> {
    return ex
      .insertInto('mpp_credentials')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst()
      .then(inserted);
  }

  // x402 deposits (deposits.ts).

  /** Inserts the deposit; false when its processor deposit id was already recorded. */
  insertDeposit(ex: Executor, deposit: X402DepositsTable): Promise<boolean> {
    return ex
      .insertInto('x402_deposits')
      .values(deposit)
      .onConflict((oc) => oc.column('deposit_id').doNothing())
      .executeTakeFirst()
      .then(inserted);
  }

  /** A deposit by our id, or by the processor's (`deposit_id`). */
  deposit(ex: Executor, id: string, column: 'id' | 'deposit_id' = 'id'): Promise<X402DepositsTable | undefined> {
    return ex.selectFrom('x402_deposits').selectAll().where(column, '=', id).executeTakeFirst();
  }

  /** Marks a held deposit credited; false when it was not held (assigned meanwhile). */
  creditDeposit(
    ex: Executor,
    id: string,
    values: { organization_id: string; payment_id: string; credited_at: string },
  ): Promise<boolean> {
    return ex
      .updateTable('x402_deposits')
      .set({ ...values, status: 'credited' })
      .where('id', '=', id)
      .where('status', '=', 'held')
      .executeTakeFirst()
      .then(updated);
  }

  listDeposits(
    status: X402DepositsTable['status'] | undefined,
    beforeId: string | null,
    count: number,
  ): Promise<X402DepositsTable[]> {
    let query = this.db.selectFrom('x402_deposits').selectAll();
    if (status) query = query.where('status', '=', status);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(count).execute();
  }
}
