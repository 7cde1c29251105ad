// SQL for the event outbox.
import { sql, type Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { EventsTable } from './tables.ts';

export type EventRow = Omit<EventsTable, 'seq'> & { seq: number };

/** NOTIFY channel that wakes every process's reader when an emitting transaction commits. */
export const EVENTS_CHANNEL = 'cellgate_events';

export class EventsRepository {
  readonly db: Kysely<DB>;
  private readonly postgres: boolean;

  constructor(db: Kysely<DB>, dialect: 'sqlite' | 'postgres') {
    this.db = db;
    this.postgres = dialect === 'postgres';
  }

  async insert(tx: Executor, row: Omit<EventRow, 'seq'>): Promise<void> {
    if (this.postgres) {
      // Serialises outbox writers from here to their commit, so `seq` order is commit order
      // (see service.ts); the NOTIFY is delivered to every listener when the transaction commits.
      // The lock key is per schema: schemas (test apps) have independent outboxes.
      await sql`select pg_advisory_xact_lock(hashtext('cellgate_events:' || current_schema())), pg_notify(${EVENTS_CHANNEL}, '')`.execute(
        tx,
      );
    }
    await tx.insertInto('events').values(row).execute();
  }

  /** Committed events after `seq`, in order, every organization. */
  readAfter(seq: number, limit: number): Promise<EventRow[]> {
    return this.db.selectFrom('events').selectAll().where('seq', '>', seq).orderBy('seq').limit(limit).execute();
  }

  /** One organization's events with after < seq <= upTo of the given types (all when null), in order. */
  readOrganizationRange(
    organizationId: string,
    after: number,
    upTo: number,
    types: readonly string[] | null,
    limit: number,
  ): Promise<EventRow[]> {
    let query = this.db
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('seq', '>', after)
      .where('seq', '<=', upTo);
    if (types) query = query.where('type', 'in', types);
    return query.orderBy('seq').limit(limit).execute();
  }

  findById(id: string): Promise<EventRow | undefined> {
    return this.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async latestSeq(): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /** Deletes up to `limit` events created before `cutoff`; how many were deleted. */
  async deleteCreatedBefore(cutoff: string, limit: number): Promise<number> {
    const doomed = this.db
      .selectFrom('events')
      .select('seq')
      .where('created_at', '<', cutoff)
      .orderBy('seq')
      .limit(limit);
    const result = await this.db.deleteFrom('events').where('seq', 'in', doomed).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
