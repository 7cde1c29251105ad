// SQL for the event outbox.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';

export class EventsRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: { id: string; organization_id: string; type: string; data: string; created_at: string }): Promise<void> {
    await ex.insertInto('events').values(row).execute();
  }
}
