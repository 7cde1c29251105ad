// SQL for pods. Membership is cells.pod_id, kept by the cells module (CellsService.setPod).
import type { Kysely, Updateable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { PodsTable } from './tables.ts';

// Run for every batch of pod draft sends that go by rotation.
const advanceRotation = prepared((ex, p: { id: string; by: number }) =>
  ex
    .updateTable('pods')
    .set((eb) => ({ rotation: eb('rotation', '+', p.by) }))
    .where('id', '=', p.id)
    .returning('rotation'),
);

/** The module's repositories: their statements run on `db` or on the transaction they are given. */
export class Repository {
  readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }
}

/** Rows per multi-row statement: far below either database's limit on bound parameters. */
const CHUNK = 1000;

export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export class PodsRepository extends Repository {
  async insert(ex: Executor, row: PodsTable): Promise<void> {
    await ex.insertInto('pods').values(row).execute();
  }

  /** Includes deleted pods: a client_id is taken forever. */
  findByClientId(organizationId: string, clientId: string) {
    return this.db
      .selectFrom('pods')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
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
    let query = this.db
      .selectFrom('pods')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Changes a live pod; false when it is gone (deleted meanwhile). */
  async update(ex: Executor, id: string, changes: Updateable<PodsTable>): Promise<boolean> {
    const result = await ex
      .updateTable('pods')
      .set(changes)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Takes the pod's next `count` round-robin positions (one atomic increment, shared by every
   * process); the first of them, or 0 when the pod is gone.
   */
  async advanceRotation(podId: string, count: number): Promise<number> {
    const row = await advanceRotation.first(this.db, { id: podId, by: count });
    return row ? row.rotation - count + 1 : 0;
  }
}
