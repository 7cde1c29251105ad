// SQL for pods. Membership is cells.pod_id, kept by the cells module (CellsService.setPod).
import type { Kysely, Updateable } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { PodsTable } from './tables.ts';

export class PodsRepository {
  readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: PodsTable): Promise<void> {
    await ex.insertInto('pods').values(row).execute();
  }

  /** Includes deleted pods: a client_id is taken forever. */
  findByClientId(organizationId: string, clientId: string) {
    return this.db.selectFrom('pods').selectAll().where('organization_id', '=', organizationId).where('client_id', '=', clientId).executeTakeFirst();
  }

  findOwned(ex: Executor, organizationId: string, id: string) {
    return ex
      .selectFrom('pods')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  list(organizationId: string, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('pods').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Changes a live pod; false when it is gone (deleted meanwhile). */
  async update(ex: Executor, id: string, changes: Updateable<PodsTable>): Promise<boolean> {
    const result = await ex.updateTable('pods').set(changes).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The next round-robin position of the pod (one atomic increment, shared by every process). */
  async nextRotation(podId: string): Promise<number> {
    const row = await this.db
      .updateTable('pods')
      .set((eb) => ({ rotation: eb('rotation', '+', 1) }))
      .where('id', '=', podId)
      .returning('rotation')
      .executeTakeFirst();
    return row?.rotation ?? 0;
  }
}
