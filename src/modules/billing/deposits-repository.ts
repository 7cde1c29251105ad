// The SQL of x402 deposits (and the payments they complete), nothing else.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { CursorKey } from '../../lib/pagination.ts';
import type { Micros } from './money.ts';
import type { PaymentsTable, X402DepositsTable } from './tables.ts';

export class DepositsRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** Inserts the deposit; false when its processor deposit id was already recorded. */
  async insert(ex: Executor, deposit: X402DepositsTable): Promise<boolean> {
    const result = await ex
      .insertInto('x402_deposits')
      .values(deposit)
      .onConflict((oc) => oc.column('deposit_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  byDepositId(ex: Executor, depositId: string): Promise<X402DepositsTable | undefined> {
    return ex.selectFrom('x402_deposits').selectAll().where('deposit_id', '=', depositId).executeTakeFirst();
  }

  find(ex: Executor, id: string): Promise<X402DepositsTable | undefined> {
    return ex.selectFrom('x402_deposits').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Marks a held deposit credited; false when it was not held (assigned meanwhile). */
  async credit(
    ex: Executor,
    id: string,
    values: { organization_id: string; payment_id: string; credited_at: string },
  ): Promise<boolean> {
    const result = await ex
      .updateTable('x402_deposits')
      .set({ ...values, status: 'credited' })
      .where('id', '=', id)
      .where('status', '=', 'held')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  list(
    status: X402DepositsTable['status'] | undefined,
    after: CursorKey | null,
    count: number,
  ): Promise<X402DepositsTable[]> {
    let query = this.db.selectFrom('x402_deposits').selectAll();
    if (status) query = query.where('status', '=', status);
    if (after) query = query.where('id', '<', String(after[0]));
    return query.orderBy('id', 'desc').limit(count).execute();
  }

  /** The newest open x402 quote of the organization for exactly this amount, locked where possible. */
  openQuote(
    ex: Executor,
    organizationId: string,
    amountMicros: Micros,
    now: string,
  ): Promise<PaymentsTable | undefined> {
    return ex
      .selectFrom('payments')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('rail', '=', 'x402')
      .where('status', '=', 'pending')
      .where('amount_micros', '=', amountMicros)
      .where('expires_at', '>', now)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async insertPayment(ex: Executor, payment: PaymentsTable): Promise<void> {
    await ex.insertInto('payments').values(payment).execute();
  }
}
