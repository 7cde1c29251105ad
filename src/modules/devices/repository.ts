// SQL for the device inventory, device keys, presence and the device-to-cell assignment.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { DevicesTable } from './tables.ts';
import type { CapabilityColumns } from './capabilities.ts';

export type DeviceChanges = Partial<Pick<DevicesTable, 'label' | 'send_rate_per_minute'>>;
export type Telemetry = Partial<Pick<DevicesTable, 'battery_pct' | 'charging' | 'signal_dbm' | 'app_version'>>;

export class DevicesRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: DevicesTable): Promise<void> {
    await ex.insertInto('devices').values(row).execute();
  }

  find(ex: Executor, id: string) {
    return ex.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByPhoneNumber(phoneNumber: string) {
    return this.db.selectFrom('devices').select('id').where('phone_number', '=', phoneNumber).executeTakeFirst();
  }

  findByKeyHash(keyHash: string) {
    return this.db.selectFrom('devices').select(['id', 'key_hash']).where('key_hash', '=', keyHash).executeTakeFirst();
  }

  list(beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('devices').selectAll();
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  async update(id: string, changes: DeviceChanges & { updated_at: string }): Promise<number> {
    const result = await this.db.updateTable('devices').set(changes).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async replaceKey(
    ex: Executor,
    id: string,
    key: { key_prefix: string; key_hash: string },
    now: string,
  ): Promise<number> {
    const result = await ex
      .updateTable('devices')
      .set({ ...key, updated_at: now })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes a device that carries no cell; the number deleted. */
  async deleteFree(id: string): Promise<number> {
    const result = await this.db
      .deleteFrom('devices')
      .where('id', '=', id)
      .where('cell_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  oldestFreeId(ex: Executor) {
    return ex
      .selectFrom('devices')
      .select('id')
      .where('cell_id', 'is', null)
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Gives a free device to a cell; 0 when someone else took it first. */
  async assignIfFree(ex: Executor, id: string, cellId: string, now: string): Promise<number> {
    const result = await ex
      .updateTable('devices')
      .set({ cell_id: cellId, updated_at: now })
      .where('id', '=', id)
      .where('cell_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Frees the device carrying `cellId`; its id, if any. */
  async unassign(ex: Executor, cellId: string, now: string): Promise<string | null> {
    const device = await ex.selectFrom('devices').select('id').where('cell_id', '=', cellId).executeTakeFirst();
    if (!device) return null;
    await ex.updateTable('devices').set({ cell_id: null, updated_at: now }).where('id', '=', device.id).execute();
    return device.id;
  }

  /** Refreshes last_seen_at of a device already online; 0 when it was offline (or gone). */
  async touchOnline(id: string, now: string): Promise<number> {
    const result = await this.db
      .updateTable('devices')
      .set({ last_seen_at: now })
      .where('id', '=', id)
      .where('online', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Brings an offline device online; the device when this call made the transition. */
  async markOnline(ex: Executor, id: string, now: string) {
    const result = await ex
      .updateTable('devices')
      .set({ online: 1, last_seen_at: now })
      .where('id', '=', id)
      .where('online', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? this.find(ex, id) : undefined;
  }

  silentIds(cutoff: string, limit: number) {
    return this.db
      .selectFrom('devices')
      .select('id')
      .where('online', '=', 1)
      .where('last_seen_at', '<', cutoff)
      .orderBy('last_seen_at', 'asc')
      .limit(limit)
      .execute();
  }

  /** Takes a device offline if it is still silent since `cutoff`; the device when this call did. */
  async markOfflineIfSilent(ex: Executor, id: string, cutoff: string) {
    const result = await ex
      .updateTable('devices')
      .set({ online: 0 })
      .where('id', '=', id)
      .where('online', '=', 1)
      .where('last_seen_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? this.find(ex, id) : undefined;
  }

  async saveTelemetry(id: string, telemetry: Telemetry): Promise<void> {
    await this.db.updateTable('devices').set(telemetry).where('id', '=', id).execute();
  }

  /**
   * Stores the capabilities a device stated, in `ex`; the device when they differ from what was
   * stored (one conditional update: of two heartbeats stating the same change, one makes it).
   */
  async saveCapabilitiesIfChanged(ex: Executor, id: string, stated: CapabilityColumns) {
    const result = await ex
      .updateTable('devices')
      .set(stated)
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('can_delivery_reports', '!=', stated.can_delivery_reports),
          eb('can_mms_send', '!=', stated.can_mms_send),
          eb('can_mms_receive', '!=', stated.can_mms_receive),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? this.find(ex, id) : undefined;
  }

  /** The device with its cell's owner and status (null columns when it carries none). */
  findWithCell(id: string) {
    return this.db
      .selectFrom('devices')
      .leftJoin('cells', 'cells.id', 'devices.cell_id')
      .select([
        'devices.id',
        'devices.cell_id',
        'devices.phone_number',
        'devices.send_rate_per_minute',
        'cells.organization_id',
        'cells.status as cell_status',
      ])
      .where('devices.id', '=', id)
      .executeTakeFirst();
  }
}
