// SQL for verification codes: the code columns of inbound messages (migration 0022), read off the
// partial index (cell_id, id) where code is not null. Messages of ignored participants are left out.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface CodeRow {
  id: string;
  from_number: string;
  code: string;
  code_service: string | null;
  received_at: string | null;
  created_at: string;
}

export interface CodeFilter {
  cellId: string;
  /** Exclusive lower bound on message ids (a message id or a time bound, see service.ts). */
  afterId?: string;
  /** Exclusive upper bound: the last id of the previous page. */
  beforeId: string | null;
  from?: string;
  /** Compared without regard to case. */
  service?: string;
  limit: number;
}

export class CodesRepository {
  private readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** The cell's codes, newest first. */
  async list(filter: CodeFilter): Promise<CodeRow[]> {
    let query = this.db
      .selectFrom('messages')
      .select(['id', 'from_number', 'code', 'code_service', 'received_at', 'created_at'])
      .where('cell_id', '=', filter.cellId)
      .where('code', 'is not', null)
      .where('direction', '=', 'inbound')
      .where('ignored', '=', 0);
    if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId);
    if (filter.beforeId !== null) query = query.where('id', '<', filter.beforeId);
    if (filter.from !== undefined) query = query.where('from_number', '=', filter.from);
    if (filter.service !== undefined)
      query = query.where(sql<string>`lower(code_service)`, '=', filter.service.toLowerCase());
    const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute();
    return rows as CodeRow[];
  }
}
