// The SQL of x402 settlement records (x402-keys.ts), nothing else.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { PaymentsTable } from './tables.ts';
import type { SettlementKey } from './x402-keys.ts';

export class X402Repository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** Whether any of these keys was recorded by a settled payment. */
  async settled(network: string, keys: readonly SettlementKey[]): Promise<boolean> {
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
  async record(
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

  async insertPayment(ex: Executor, payment: PaymentsTable): Promise<void> {
    await ex.insertInto('payments').values(payment).execute();
  }
}
