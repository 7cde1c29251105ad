// SQL for MCP tasks (migration 0025). Every read names the owner and skips expired rows, so a
// task of another organization or credential, or past its ttl, is simply not there.
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { McpTaskStatus, McpTasksTable } from './tables.ts';

export type McpTaskRow = Selectable<McpTasksTable>;

export interface TaskOwner {
  organizationId: string;
  owner: string;
}

export class McpTaskRepository {
  private readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(row: McpTaskRow): Promise<void> {
    await this.db.insertInto('mcp_tasks').values(row).execute();
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

  /** The organization's tasks still working and not expired (the cap on new ones). */
  async countWorking(organizationId: string, now: string): Promise<number> {
    const row = await this.db
      .selectFrom('mcp_tasks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'working')
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Ends a working task (the first writer wins: another process, or a cancel, may have ended it).
   * Returns whether this call ended it.
   */
  async finish(
    id: string,
    end: { status: Exclude<McpTaskStatus, 'working'>; statusMessage: string | null; result: string | null; at: string },
  ): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('mcp_tasks')
      .set({ status: end.status, status_message: end.statusMessage, result: end.result, updated_at: end.at })
      .where('id', '=', id)
      .where('status', '=', 'working')
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async prune(now: string): Promise<void> {
    await this.db.deleteFrom('mcp_tasks').where('expires_at', '<=', now).execute();
  }
}
