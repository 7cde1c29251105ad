// SQL for cells. Reads join the carrying device for the online/last_seen_at of the cell view: the
// phone whose devices.cell_id names the cell, or (a second SIM line, contract §13) the phone of the
// SIM line that carries it.
import type { JoinBuilder, Kysely } from 'kysely';
import { prepared, preparedLists, preparedRows } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { CellStatus, CellsTable } from './tables.ts';

/** A cell row with its device's presence and stated capabilities (null without a device). */
export type CellRecord = CellsTable & {
  device_online: number | null;
  device_last_seen_at: string | null;
  can_delivery_reports: number | null;
  can_mms_send: number | null;
  can_mms_receive: number | null;
  device_paused: number | null;
  device_health: string | null;
};

/** Joins the phone carrying the cell: by devices.cell_id, or through the SIM line the cell is on. */
const carrier = (join: JoinBuilder<DB, 'cells' | 'devices'>) =>
  join.on((eb) =>
    eb.or([
      eb('devices.cell_id', '=', eb.ref('cells.id')),
      eb(
        'devices.id',
        '=',
        eb
          .selectFrom('device_sims')
          .select('device_sims.device_id')
          .where('device_sims.cell_id', '=', eb.ref('cells.id')),
      ),
    ]),
  );

function records(ex: Executor) {
  return ex
    .selectFrom('cells')
    .leftJoin('devices', carrier)
    .selectAll('cells')
    .select([
      'devices.online as device_online',
      'devices.last_seen_at as device_last_seen_at',
      'devices.can_delivery_reports',
      'devices.can_mms_send',
      'devices.can_mms_receive',
      'devices.paused as device_paused',
      'devices.health as device_health',
    ]);
}

// Run on every send and most agent requests.
const findOwnedCell = prepared((ex, p: { organizationId: string; id: string }) =>
  records(ex)
    .where('cells.id', '=', p.id)
    .where('cells.organization_id', '=', p.organizationId)
    .where('cells.status', '!=', 'released'),
);

// Run for every batch of sends: the batch's cells in one statement.
// Whether the phone sends MMS comes along: a send with media from one that cannot is refused;
// so do the cell's and its pod's quiet hours, which may hold the send until they end.
const findOwnedCells = preparedRows((ex, refs: { organizationId: string; id: string }[]) =>
  ex
    .selectFrom('cells')
    .leftJoin('devices', carrier)
    .leftJoin('pods', 'pods.id', 'cells.pod_id')
    .select([
      'cells.id',
      'cells.organization_id',
      'cells.status',
      'cells.phone_number',
      'devices.can_mms_send',
      'devices.id as device_id',
      'devices.send_rate_per_minute',
      'devices.daily_send_limit',
      'cells.quiet_hours',
      'pods.quiet_hours as pod_quiet_hours',
    ])
    .where('cells.status', '!=', 'released')
    .where((eb) =>
      eb.or(
        refs.map((ref) => eb.and([eb('cells.id', '=', ref.id), eb('cells.organization_id', '=', ref.organizationId)])),
      ),
    ),
);

// Run for every batch of pod draft sends: the cells of the batch's pods.
const findInPods = preparedLists((ex, p: { podIds: readonly string[] }) =>
  records(ex).where('cells.pod_id', 'in', p.podIds).where('cells.status', '!=', 'released').orderBy('cells.id'),
);

export class CellsRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** Live (not released) cells of an organization by status and device presence. */
  countsByStatus(organizationId: string, ex: Executor = this.db) {
    return ex
      .selectFrom('cells')
      .leftJoin('devices', carrier)
      .select(['cells.status', 'devices.online'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('cells.organization_id', '=', organizationId)
      .where('cells.status', '!=', 'released')
      .groupBy(['cells.status', 'devices.online'])
      .execute();
  }

  /** Active cells of an organization whose phone has never called in (or that have none). */
  async countNeverSeen(organizationId: string, ex: Executor = this.db): Promise<number> {
    const row = await ex
      .selectFrom('cells')
      .leftJoin('devices', carrier)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('cells.organization_id', '=', organizationId)
      .where('cells.status', '=', 'active')
      .where('devices.last_seen_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async insert(ex: Executor, row: CellsTable): Promise<void> {
    await ex.insertInto('cells').values(row).execute();
  }

  find(ex: Executor, id: string): Promise<CellRecord | undefined> {
    return records(ex).where('cells.id', '=', id).executeTakeFirst();
  }

  /** A cell of this organization that is not released. */
  findOwned(ex: Executor, organizationId: string, id: string): Promise<CellRecord | undefined> {
    return findOwnedCell.first(ex, { organizationId, id });
  }

  /** The organization's live (not released) cells among `refs`: what a send needs of each. */
  async findOwnedAmong(ex: Executor, refs: readonly { organizationId: string; id: string }[]) {
    return (await findOwnedCells(ex, refs)).rows;
  }

  list(
    organizationId: string,
    status: CellStatus | undefined,
    beforeId: string | null,
    limit: number,
  ): Promise<CellRecord[]> {
    let query = records(this.db).where('cells.organization_id', '=', organizationId);
    query = status ? query.where('cells.status', '=', status) : query.where('cells.status', '!=', 'released');
    if (beforeId) query = query.where('cells.id', '<', beforeId);
    return query.orderBy('cells.id', 'desc').limit(limit).execute();
  }

  /** Moves the organization's cells in `from` to `to`; the cells moved. */
  moveStatus(ex: Executor, organizationId: string, from: CellStatus, to: CellStatus, now: string) {
    return ex
      .updateTable('cells')
      .set({ status: to, updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('status', '=', from)
      .returning(['id', 'device_id'])
      .execute();
  }

  /** Sets the given fields (undefined: unchanged); how many cells changed (0: none of the organization's). */
  async update(
    ex: Executor,
    organizationId: string,
    id: string,
    fields: { display_name?: string; quiet_hours?: string | null },
    now: string,
  ): Promise<number> {
    const set = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const result = await ex
      .updateTable('cells')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('status', '!=', 'released')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Marks a cell released unless it already is; 0 when someone else released it first. */
  async markReleased(ex: Executor, id: string, now: string): Promise<number> {
    const result = await ex
      .updateTable('cells')
      // A released cell leaves its pod.
      .set({ status: 'released', released_at: now, updated_at: now, pod_id: null })
      .where('id', '=', id)
      .where('status', '!=', 'released')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  // --- pods ---

  findOwnedIds(ex: Executor, organizationId: string, ids: readonly string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return ex
      .selectFrom('cells')
      .select(['id', 'pod_id', 'status'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .where('status', '!=', 'released')
      .execute();
  }

  inPods(ex: Executor, podIds: readonly string[]): Promise<CellRecord[]> {
    if (podIds.length === 0) return Promise.resolve([]);
    return findInPods(ex, { podIds }).then((result) => result.rows);
  }

  /** Takes the pod's cells not in `keep` out of it; their ids. */
  async leavePod(ex: Executor, podId: string, keep: readonly string[], now: string): Promise<string[]> {
    let query = ex.updateTable('cells').set({ pod_id: null, updated_at: now }).where('pod_id', '=', podId);
    if (keep.length > 0) query = query.where('id', 'not in', keep);
    return (await query.returning('id').execute()).map((row) => row.id);
  }

  /** Puts the live cells among `ids` that are in no pod into this one; their ids. */
  async joinPod(
    ex: Executor,
    organizationId: string,
    podId: string,
    ids: readonly string[],
    now: string,
  ): Promise<string[]> {
    const rows = await ex
      .updateTable('cells')
      .set({ pod_id: podId, updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .where('status', '!=', 'released')
      .where('pod_id', 'is', null)
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  async countInPod(ex: Executor, podId: string, ids: readonly string[]): Promise<number> {
    const row = await ex
      .selectFrom('cells')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('pod_id', '=', podId)
      .where('id', 'in', ids)
      .where('status', '!=', 'released')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  oldestProvisioning(ex: Executor) {
    return ex
      .selectFrom('cells')
      .select('id')
      .where('status', '=', 'provisioning')
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Row-locks a cell that is still provisioning until the transaction ends (a no-op update: the
   * portable SELECT ... FOR UPDATE); 0 when it stopped being provisioning.
   */
  async lockProvisioning(ex: Executor, id: string): Promise<number> {
    const result = await ex
      .updateTable('cells')
      .set((eb) => ({ status: eb.ref('status') }))
      .where('id', '=', id)
      .where('status', '=', 'provisioning')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Activates a provisioning cell (locked by lockProvisioning) on a device. */
  async activate(ex: Executor, id: string, device: { id: string; phone_number: string }, now: string): Promise<void> {
    await ex
      .updateTable('cells')
      .set({ status: 'active', device_id: device.id, phone_number: device.phone_number, updated_at: now })
      .where('id', '=', id)
      .execute();
  }
}
