// SQL for enrollments (contract §13) and the SIM lines of a phone.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { DeviceEnrollmentsTable, DeviceSimsTable } from './tables.ts';

export class EnrollmentsRepository {
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  async insert(ex: Executor, row: DeviceEnrollmentsTable): Promise<void> {
    await ex.insertInto('device_enrollments').values(row).execute();
  }

  /** Pending enrollments (unused, unexpired), newest first. */
  pending(now: string, beforeId: string | null, limit: number) {
    let query = this.db
      .selectFrom('device_enrollments')
      .selectAll()
      .where('used_at', 'is', null)
      .where('expires_at', '>', now);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Deletes a pending enrollment; how many rows (0: unknown or already used). */
  async revoke(ex: Executor, id: string): Promise<number> {
    const result = await ex
      .deleteFrom('device_enrollments')
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  byToken(ex: Executor, tokenHash: string) {
    return ex.selectFrom('device_enrollments').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The enrollments whose code is this one and still valid (a code is unique among valid ones). */
  byCode(ex: Executor, codeHash: string, now: string) {
    return ex
      .selectFrom('device_enrollments')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .where('code_expires_at', '>', now)
      .execute();
  }

  /** Marks the enrollment used by `deviceId` if it still is unused and unexpired; 1 when it was. */
  async spend(ex: Executor, id: string, deviceId: string, now: string): Promise<number> {
    const result = await ex
      .updateTable('device_enrollments')
      .set({ used_at: now, device_id: deviceId })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes enrollments past their expiry (used ones after the same time); how many. */
  async prune(cutoff: string): Promise<number> {
    const result = await this.db.deleteFrom('device_enrollments').where('expires_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  // --- SIM lines -----------------------------------------------------------------------------

  sims(ex: Executor, deviceIds: readonly string[]) {
    if (deviceIds.length === 0) return Promise.resolve([]);
    return ex
      .selectFrom('device_sims')
      .selectAll()
      .where('device_id', 'in', deviceIds)
      .orderBy('device_id')
      .orderBy('sim_number')
      .execute();
  }

  /** Replaces a device's lines with `rows` (the caller decides what each keeps). */
  async replaceSims(ex: Executor, deviceId: string, rows: readonly DeviceSimsTable[]): Promise<void> {
    await this.deleteSims(ex, deviceId);
    if (rows.length > 0) await ex.insertInto('device_sims').values(rows).execute();
  }

  async deleteSims(ex: Executor, deviceId: string): Promise<void> {
    await ex.deleteFrom('device_sims').where('device_id', '=', deviceId).execute();
  }

  async setSimNumber(ex: Executor, deviceId: string, simNumber: number, phoneNumber: string): Promise<number> {
    const result = await ex
      .updateTable('device_sims')
      .set({ phone_number: phoneNumber })
      .where('device_id', '=', deviceId)
      .where('sim_number', '=', simNumber)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
