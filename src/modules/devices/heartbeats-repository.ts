// SQL for the heartbeat history: one row per device per minute, read newest first, pruned by age.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DeviceHeartbeatsTable } from './tables.ts';

export interface HeartbeatRange {
  deviceId: string;
  /** Inclusive ISO time. */
  from?: string;
  /** Exclusive ISO time. */
  to?: string;
  /** The minute of the last row of the previous page: rows strictly older. */
  beforeMinute?: number;
}

export class HeartbeatsRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** Inserts the minute's row unless the device already has one. */
  async insertFirstOfMinute(row: DeviceHeartbeatsTable): Promise<void> {
    await this.db
      .insertInto('device_heartbeats')
      .values(row)
      .onConflict((oc) => oc.columns(['device_id', 'minute']).doNothing())
      .execute();
  }

  list(range: HeartbeatRange, limit: number) {
    let query = this.db.selectFrom('device_heartbeats').selectAll().where('device_id', '=', range.deviceId);
    if (range.from !== undefined) query = query.where('received_at', '>=', range.from);
    if (range.to !== undefined) query = query.where('received_at', '<', range.to);
    if (range.beforeMinute !== undefined) query = query.where('minute', '<', range.beforeMinute);
    return query.orderBy('minute', 'desc').limit(limit).execute();
  }

  async oldestMinuteBefore(minute: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('device_heartbeats')
      .select((eb) => eb.fn.min('minute').as('oldest'))
      .where('minute', '<', minute)
      .executeTakeFirst();
    return row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
  }

  async deleteBefore(minute: number): Promise<number> {
    const result = await this.db.deleteFrom('device_heartbeats').where('minute', '<', minute).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteOfDevice(deviceId: string): Promise<void> {
    await this.db.deleteFrom('device_heartbeats').where('device_id', '=', deviceId).execute();
  }
}
