// SQL for drafts.
import type { Kysely, Updateable } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { Scope } from './scope.ts';
import type { DraftsTable, DraftStatus } from './tables.ts';

export class DraftsRepository {
  readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: DraftsTable): Promise<void> {
    await ex.insertInto('drafts').values(row).execute();
  }

  /** Any draft of the organization with this client_id: a client_id is taken forever. */
  findByClientId(organizationId: string, clientId: string) {
    return this.db.selectFrom('drafts').selectAll().where('organization_id', '=', organizationId).where('client_id', '=', clientId).executeTakeFirst();
  }

  findInScope(scope: Scope, id: string) {
    return this.db
      .selectFrom('drafts')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', scope.organizationId)
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id)
      .executeTakeFirst();
  }

  list(scope: Scope, status: DraftStatus | undefined, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('drafts').selectAll().where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id);
    if (status) query = query.where('status', '=', status);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Changes a draft that is still a draft; the row, or undefined when it is not. */
  changeDraft(ex: Executor, id: string, changes: Updateable<DraftsTable>) {
    return ex.updateTable('drafts').set(changes).where('id', '=', id).where('status', '=', 'draft').returningAll().executeTakeFirst();
  }
}
