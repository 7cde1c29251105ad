// SQL for MCP tasks (migration 0025). Every read names the owner and skips expired rows, so a
// task of another organization or credential, or past its ttl, is simply not there.
import { sql, type Kysely, type Selectable } from 'kysely';
import { isPostgres } from '../../db/migrations/dialect.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { McpTaskStatus, McpTasksTable } from './tables.ts';

export type McpTaskRow = Selectable<McpTasksTable>;

/** The arguments of an ended task: none (JSON null). Nothing runs it again, and a failed one keeps only its error. */
export const NO_ARGUMENTS = 'null';

export interface TaskOwner {
  organizationId: string;
  owner: string;
}

export class McpTaskRepository {
  private readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /**
   * Inserts the task unless the organization holds `cap` working or failed tasks already; whether
   * it did. The count and the insert share a transaction under a lock of the organization's tasks
   * (a transaction-scoped advisory lock on PostgreSQL; SQLite runs one write transaction at a
   * time), so concurrent creations never pass the cap.
   */
  async insertCapped(row: McpTaskRow, cap: number, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      if (isPostgres(tx))
        await sql`select pg_advisory_xact_lock(hashtextextended(${`mcp_tasks:${row.organization_id}`}, 0))`.execute(tx);
      if ((await this.countHeld(tx, row.organization_id, now)) >= cap) return false;
      await tx.insertInto('mcp_tasks').values(row).execute();
      return true;
    });
  }

  async find(who: TaskOwner, id: string, now: string): Promise<McpTaskRow | undefined> {
    return this.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', who.organizationId)
      .where('owner', '=', who.owner)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  /** The owner's live tasks, newest first, after the (created_at, id) of `after`. */
  async list(who: TaskOwner, now: string, limit: number, after?: { createdAt: string; id: string }) {
    let query = this.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('organization_id', '=', who.organizationId)
      .where('owner', '=', who.owner)
      .where('expires_at', '>', now);
    if (after)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** The organization's tasks working or failed and not expired (the cap on new ones). */
  private async countHeld(ex: Executor, organizationId: string, now: string): Promise<number> {
    const row = await ex
      .selectFrom('mcp_tasks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .where('status', 'in', ['working', 'failed'])
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Ends a working task, dropping its arguments (the first writer wins: another process, or a cancel, may have ended it).
   * Returns whether this call ended it.
   */
  async finish(
    id: string,
    end: { status: Exclude<McpTaskStatus, 'working'>; statusMessage: string | null; result: string | null; at: string },
  ): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('mcp_tasks')
      .set({
        status: end.status,
        status_message: end.statusMessage,
        result: end.result,
        arguments: NO_ARGUMENTS,
        updated_at: end.at,
      })
      .where('id', '=', id)
      .where('status', '=', 'working')
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async prune(now: string): Promise<void> {
    await this.db.deleteFrom('mcp_tasks').where('expires_at', '<=', now).execute();
  }
}
