// SQL for the device inventory, device keys, presence and the device-to-cell assignment.
import type { Kysely, UpdateObject, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { DeviceHealth, DeviceOutcomesTable, DevicesTable } from './tables.ts';
import type { CapabilityColumns } from './capabilities.ts';

type DeviceUpdate = UpdateQueryBuilder<DB, 'devices', 'devices', UpdateResult>;

export type DeviceChanges = Partial<Pick<DevicesTable, 'label' | 'send_rate_per_minute' | 'daily_send_limit'>>;
export type Telemetry = Partial<Pick<DevicesTable, 'battery_pct' | 'charging' | 'signal_dbm' | 'app_version'>>;

// Run by every device request (the key) and every report of a send (its outcome, the phone's
// health): built and compiled once (db/prepared.ts).
const findDevice = prepared((ex, p: { id: string }) => ex.selectFrom('devices').selectAll().where('id', '=', p.id));
const findByKeyHash = prepared((ex, p: { keyHash: string }) =>
  ex.selectFrom('devices').select(['id', 'key_hash']).where('key_hash', '=', p.keyHash),
);
const insertOutcome = prepared((ex, row: DeviceOutcomesTable) =>
  ex
    .insertInto('device_outcomes')
    .values({
      device_id: row.device_id,
      message_id: row.message_id,
      outcome: row.outcome,
      error_code: row.error_code,
      segments: row.segments,
      created_at: row.created_at,
    })
    .onConflict((oc) => oc.doNothing()),
);

export class DevicesRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: DevicesTable): Promise<void> {
    await ex.insertInto('devices').values(row).execute();
  }

  find(ex: Executor, id: string) {
    return findDevice.first(ex, { id });
  }

  /**
   * Whether a phone other than `own` carries `phoneNumber`, as its number or on a SIM line; or a
   * line of `own` other than `own.simNumber` does (a phone's own number names one of its lines).
   */
  async numberTaken(ex: Executor, phoneNumber: string, own?: { deviceId: string; simNumber: number }) {
    let devices = ex.selectFrom('devices').select('id').where('phone_number', '=', phoneNumber);
    if (own) devices = devices.where('id', '!=', own.deviceId);
    let lines = ex.selectFrom('device_sims').select('device_id').where('phone_number', '=', phoneNumber);
    if (own)
      lines = lines.where((eb) => eb.or([eb('device_id', '!=', own.deviceId), eb('sim_number', '!=', own.simNumber)]));
    return (await devices.executeTakeFirst()) !== undefined || (await lines.executeTakeFirst()) !== undefined;
  }

  /** Gives a phone its first known number (an SMSGate phone registered with redacted SIM numbers). */
  async setNumberIfNone(ex: Executor, id: string, phoneNumber: string): Promise<void> {
    await ex
      .updateTable('devices')
      .set({ phone_number: phoneNumber })
      .where('id', '=', id)
      .where('phone_number', 'is', null)
      .execute();
  }

  findByKeyHash(keyHash: string) {
    return findByKeyHash.first(this.db, { keyHash });
  }

  list(beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('devices').selectAll();
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  async update(
    ex: Executor,
    id: string,
    changes: (DeviceChanges | Pick<DevicesTable, 'key_prefix' | 'key_hash'>) & { updated_at: string },
  ): Promise<number> {
    const result = await ex.updateTable('devices').set(changes).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async setPushToken(ex: Executor, id: string, pushToken: string | null): Promise<void> {
    await ex.updateTable('devices').set({ push_token: pushToken }).where('id', '=', id).execute();
  }

  /** Deletes the device unless it carries a cell; its phone number (null: it had none), or undefined when nothing was deleted. */
  deleteFree(ex: Executor, id: string) {
    return ex
      .deleteFrom('devices')
      .where('id', '=', id)
      .where('cell_id', 'is', null)
      .returning('phone_number')
      .executeTakeFirst();
  }

  /** The oldest phone on the native surface (one line) that carries no cell. */
  oldestFreeNative(ex: Executor) {
    return (
      ex
        .selectFrom('devices')
        .select(['id', 'phone_number'])
        .where('cell_id', 'is', null)
        .where('agent', '=', 'native')
        // A native phone always has its number (POST /v1/admin/devices takes it).
        .$narrowType<{ phone_number: string }>()
        .orderBy('id', 'asc')
        .limit(1)
        .executeTakeFirst()
    );
  }

  /** The oldest SIM line with a number that carries no cell (SMSGate phones, contract §13). */
  oldestFreeLine(ex: Executor) {
    return ex
      .selectFrom('device_sims')
      .select(['device_id as id', 'sim_number', 'phone_number'])
      .where('cell_id', 'is', null)
      .where('phone_number', 'is not', null)
      .orderBy('device_id', 'asc')
      .orderBy('sim_number', 'asc')
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

  /** Gives a free SIM line to a cell; 0 when someone else took it first. */
  async assignLineIfFree(ex: Executor, deviceId: string, simNumber: number, cellId: string): Promise<number> {
    const result = await ex
      .updateTable('device_sims')
      .set({ cell_id: cellId })
      .where('device_id', '=', deviceId)
      .where('sim_number', '=', simNumber)
      .where('cell_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The device carrying `cellId` (on any SIM line) and its send rate (the pace of the cell's sends). */
  findByCell(cellId: string) {
    return this.db
      .selectFrom('devices')
      .select(['id', 'send_rate_per_minute', 'daily_send_limit'])
      .where((eb) =>
        eb.or([
          eb('cell_id', '=', cellId),
          eb('id', '=', eb.selectFrom('device_sims').select('device_id').where('cell_id', '=', cellId)),
        ]),
      )
      .executeTakeFirst();
  }

  /**
   * Frees the device (or SIM line) carrying `cellId`; the device's id, if any. devices.cell_id
   * names the cell of a phone's first line that carries one, so it moves to the other line's cell.
   */
  async unassign(ex: Executor, cellId: string, now: string): Promise<string | null> {
    const line = await ex
      .updateTable('device_sims')
      .set({ cell_id: null })
      .where('cell_id', '=', cellId)
      .returning('device_id')
      .executeTakeFirst();
    const device =
      line ??
      (await ex.selectFrom('devices').select('id as device_id').where('cell_id', '=', cellId).executeTakeFirst());
    if (!device) return null;
    const other = line
      ? await ex
          .selectFrom('device_sims')
          .select('cell_id')
          .where('device_id', '=', line.device_id)
          .where('cell_id', 'is not', null)
          .orderBy('sim_number')
          .limit(1)
          .executeTakeFirst()
      : undefined;
    await ex
      .updateTable('devices')
      .set({ cell_id: other?.cell_id ?? null, updated_at: now })
      .where('id', '=', device.device_id)
      .where('cell_id', '=', cellId)
      .execute();
    return device.device_id;
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
  markOnline(ex: Executor, id: string, now: string) {
    return this.change(ex, id, { online: 1, last_seen_at: now }, (q) => q.where('online', '=', 0));
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
  markOfflineIfSilent(ex: Executor, id: string, cutoff: string) {
    return this.change(ex, id, { online: 0 }, (q) => q.where('online', '=', 1).where('last_seen_at', '<', cutoff));
  }

  /** Stores telemetry; the device as it is now (in `ex`). */
  saveTelemetry(ex: Executor, id: string, telemetry: Telemetry) {
    return ex.updateTable('devices').set(telemetry).where('id', '=', id).returningAll().executeTakeFirst();
  }

  /** Sets the battery-low flag when it is not already so (of two heartbeats, one changes it); the device when this did. */
  setBatteryLow(ex: Executor, id: string, low: boolean) {
    return this.change(ex, id, { battery_low: low ? 1 : 0 }, (q) => q.where('battery_low', '=', low ? 0 : 1));
  }

  /**
   * Stores the capabilities a device stated, in `ex`; the device when they differ from what was
   * stored (one conditional update: of two heartbeats stating the same change, one makes it).
   */
  saveCapabilitiesIfChanged(ex: Executor, id: string, stated: CapabilityColumns) {
    return this.change(ex, id, stated, (q) =>
      q.where((eb) =>
        eb.or([
          eb('can_delivery_reports', '!=', stated.can_delivery_reports),
          eb('can_mms_send', '!=', stated.can_mms_send),
          eb('can_mms_receive', '!=', stated.can_mms_receive),
        ]),
      ),
    );
  }

  /** Pauses or resumes a device; the device when this call changed it (0 rows: already so, or gone). */
  setPaused(ex: Executor, id: string, paused: boolean, reason: string | null, now: string) {
    const values = { paused: paused ? 1 : 0, paused_reason: paused ? reason : null, updated_at: now };
    return this.change(ex, id, values, (q) => q.where('paused', '=', paused ? 0 : 1));
  }

  /**
   * Sets the health state when it differs from `from` (the state it was read in: of two
   * evaluations, one makes the change); `resetAt` starts a new outcome window (a release).
   */
  setHealth(
    ex: Executor,
    id: string,
    from: DeviceHealth | 'unhealthy',
    to: { health: DeviceHealth; reason: string | null; now: string; resetAt?: string },
  ) {
    const values = {
      health: to.health,
      health_reason: to.reason,
      health_changed_at: to.now,
      updated_at: to.now,
      ...(to.resetAt ? { health_reset_at: to.resetAt } : {}),
    };
    return this.change(ex, id, values, (q) =>
      from === 'unhealthy' ? q.where('health', '!=', 'healthy') : q.where('health', '=', from),
    );
  }

  /** Sets `values` on the device while `notYet` holds (of two callers, one changes it); the device when this call did. */
  private async change(
    ex: Executor,
    id: string,
    values: UpdateObject<DB, 'devices'>,
    notYet: (query: DeviceUpdate) => DeviceUpdate,
  ) {
    const result = await notYet(ex.updateTable('devices').set(values).where('id', '=', id)).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? this.find(ex, id) : undefined;
  }

  async insertOutcome(ex: Executor, row: DeviceOutcomesTable): Promise<void> {
    await insertOutcome.execute(ex, row);
  }

  /** The device's newest `limit` outcomes after `after` (its last release), newest first. */
  recentOutcomes(ex: Executor, deviceId: string, after: string | null, limit: number) {
    let query = ex.selectFrom('device_outcomes').select(['outcome', 'error_code']).where('device_id', '=', deviceId);
    if (after) query = query.where('created_at', '>', after);
    return query.orderBy('created_at', 'desc').orderBy('message_id', 'desc').limit(limit).execute();
  }

  /** The device's newest failures (with their codes), newest first: the operator's device page. */
  recentFailures(deviceId: string, limit: number) {
    return this.db
      .selectFrom('device_outcomes')
      .select(['message_id', 'outcome', 'error_code', 'created_at'])
      .where('device_id', '=', deviceId)
      .where('outcome', 'in', ['failed', 'stuck'])
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }

  async pruneOutcomes(before: string): Promise<number> {
    const result = await this.db.deleteFrom('device_outcomes').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Per device, its sends and failures recorded since `since` (messages, not segments). */
  async outcomeCounts(
    ids: readonly string[],
    since: string,
    ex: Executor = this.db,
  ): Promise<Map<string, { sent: number; failed: number }>> {
    const counts = new Map<string, { sent: number; failed: number }>();
    if (ids.length === 0) return counts;
    const rows = await ex
      .selectFrom('device_outcomes')
      .select(['device_id', 'outcome'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('device_id', 'in', ids)
      .where('created_at', '>', since)
      .where('outcome', 'in', ['sent', 'failed'])
      .groupBy(['device_id', 'outcome'])
      .execute();
    for (const row of rows) {
      const entry = counts.get(row.device_id) ?? { sent: 0, failed: 0 };
      entry[row.outcome as 'sent' | 'failed'] = Number(row.n);
      counts.set(row.device_id, entry);
    }
    return counts;
  }

  /**
   * The device with each cell it carries, its owner, status and SIM line: one row per SIM line
   * carrying a cell, or one row (null columns when it carries none) for a one-line phone.
   */
  findWithCells(id: string) {
    return this.db
      .selectFrom('devices')
      .leftJoin('device_sims', (join) =>
        join.onRef('device_sims.device_id', '=', 'devices.id').on('device_sims.cell_id', 'is not', null),
      )
      .leftJoin('cells', (join) =>
        join.on((eb) => eb('cells.id', '=', eb.fn.coalesce('device_sims.cell_id', 'devices.cell_id'))),
      )
      .select([
        'devices.id',
        'cells.id as cell_id',
        'cells.phone_number as cell_number',
        'device_sims.sim_number',
        'devices.phone_number',
        'devices.send_rate_per_minute',
        'devices.daily_send_limit',
        'devices.paused',
        'devices.health',
        'cells.organization_id',
        'cells.status as cell_status',
      ])
      .where('devices.id', '=', id)
      .orderBy('device_sims.sim_number')
      .execute();
  }
}
