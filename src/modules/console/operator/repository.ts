// SQL of the operator console: its sessions, and the fleet's read-only views. Like the metrics
// repository, the fleet reads span modules' tables on purpose (the cells of the phones' lines with
// their organizations, queue depth per cell, each phone's latest failures): they are the operator's
// view of the whole rack, one grouped read each, and nothing else would call them through a service.
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { OperatorSessionsTable, OperatorTables } from './tables.ts';

/** At most this many phones on the fleet page (a rack, not a data centre). */
export const FLEET_LIMIT = 2_000;

export class OperatorRepository {
  readonly db: Kysely<DB & OperatorTables>;
  constructor(db: Kysely<DB>) {
    this.db = db.withTables<OperatorTables>();
  }

  // --- sessions ------------------------------------------------------------------------------

  async insertSession(row: OperatorSessionsTable, now: string): Promise<void> {
    await this.db.deleteFrom('operator_sessions').where('expires_at', '<=', now).execute();
    await this.db.insertInto('operator_sessions').values(row).execute();
  }

  findSession(tokenHash: string, now: string) {
    return this.db
      .selectFrom('operator_sessions')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('operator_sessions').where('token_hash', '=', tokenHash).execute();
  }

  // --- fleet ---------------------------------------------------------------------------------

  /** Every phone, oldest first. */
  fleet() {
    return this.db.selectFrom('devices').selectAll().orderBy('id').limit(FLEET_LIMIT).execute();
  }

  /** The cells `ids` (those the phones' lines carry), each with its organization. */
  async cells(ids: readonly string[]) {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('cells')
      .leftJoin('organizations', 'organizations.id', 'cells.organization_id')
      .select([
        'cells.id',
        'cells.display_name as cell_name',
        'organizations.id as organization_id',
        'organizations.name as organization_name',
      ])
      .where('cells.id', 'in', ids)
      .execute();
  }

  /** Queued (unclaimed) messages of each of the cells `cellIds` (those the phones' lines carry). */
  async queuedByCell(cellIds: readonly string[]): Promise<Map<string, number>> {
    if (cellIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['cell_id', eb.fn.countAll<number | string>().as('n')])
      .where('status', '=', 'queued')
      .where('cell_id', 'in', cellIds)
      .groupBy('cell_id')
      .execute();
    return new Map(rows.map((row) => [row.cell_id, Number(row.n)]));
  }

  /** The phone's latest failed messages, newest first. */
  recentFailures(deviceId: string, limit: number) {
    return this.db
      .selectFrom('messages')
      .select(['id', 'cell_id', 'to_number', 'segments', 'attempts', 'error_code', 'error_message', 'failed_at'])
      .where('device_id', '=', deviceId)
      .where('status', '=', 'failed')
      .orderBy('failed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  // --- organizations -------------------------------------------------------------------------

  /** An organization's cells, newest first. */
  cellsOf(organizationId: string, limit: number) {
    return this.db
      .selectFrom('cells')
      .select(['id', 'display_name', 'phone_number', 'status', 'device_id', 'created_at'])
      .where('organization_id', '=', organizationId)
      .where('status', '!=', 'released')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** An organization's latest ledger entries, newest first. */
  ledger(organizationId: string, limit: number) {
    return this.db
      .selectFrom('ledger_entries')
      .select(['id', 'kind', 'amount_micros', 'reference', 'description', 'created_at'])
      .where('organization_id', '=', organizationId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
