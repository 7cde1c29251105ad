// Heartbeat history (contract §11), for the operator to read back. Bounded twice: one row per
// device per UTC minute (the minute's first heartbeat), and rows older than 7 days are pruned.
import type { Clock } from '../../lib/clock.ts';
import { invalidField } from '../../lib/errors.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import type { HeartbeatsRepository } from './heartbeats-repository.ts';
import type { DeviceHeartbeatsTable } from './tables.ts';
import type { HeartbeatBody } from './service.ts';

export const HEARTBEAT_RETENTION_MS = 7 * 24 * 3_600_000;
export const HEARTBEATS_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const MINUTE_MS = 60_000;
/** Minutes deleted per prune statement, so a prune after a long stop is a series of small deletes. */
const PRUNE_BATCH_MINUTES = 60;

type ReportedTelemetry = Pick<HeartbeatBody, 'battery_pct' | 'charging' | 'signal_dbm'>;

export interface HeartbeatQuery extends PageQuery {
  from?: string;
  to?: string;
}

export function heartbeatView(row: DeviceHeartbeatsTable) {
  return {
    battery_pct: row.battery_pct,
    charging: row.charging === null ? null : row.charging === 1,
    signal_dbm: row.signal_dbm,
    received_at: row.received_at,
  };
}

export class HeartbeatHistory {
  private readonly repo: HeartbeatsRepository;
  private readonly clock: Clock;
  /** The minute this process last recorded per device: skips the write of a coalesced heartbeat. */
  private readonly recordedMinute = new Map<string, number>();

  constructor(deps: { repo: HeartbeatsRepository; clock: Clock }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
  }

  /**
   * Records what a heartbeat reported, unless the device already has a row for this minute. A
   * heartbeat that reports none of battery, charging and signal ("still here") records nothing.
   */
  async record(deviceId: string, telemetry: ReportedTelemetry): Promise<void> {
    if (telemetry.battery_pct === undefined && telemetry.charging === undefined && telemetry.signal_dbm === undefined)
      return;
    const now = this.clock.now();
    const minute = Math.floor(now.getTime() / MINUTE_MS);
    if (this.recordedMinute.get(deviceId) === minute) return;
    // Another process (or a concurrent request) may have written the minute's row: the primary
    // key keeps the first.
    await this.repo.insertFirstOfMinute({
      device_id: deviceId,
      minute,
      battery_pct: telemetry.battery_pct ?? null,
      charging: telemetry.charging === undefined ? null : telemetry.charging ? 1 : 0,
      signal_dbm: telemetry.signal_dbm ?? null,
      received_at: now.toISOString(),
    });
    if (this.recordedMinute.size > 100_000) this.recordedMinute.clear();
    this.recordedMinute.set(deviceId, minute);
  }

  /** A page of a device's history, newest first; [from, to) when given. */
  async list(deviceId: string, query: HeartbeatQuery) {
    const from = query.from === undefined ? undefined : new Date(query.from);
    const to = query.to === undefined ? undefined : new Date(query.to);
    if (from && to && from >= to) throw invalidField('from', 'invalid_range', 'from must be before to.');
    const range = { deviceId, from: from?.toISOString(), to: to?.toISOString() };
    const page = await listPage(
      query,
      (after, count) => {
        if (after && typeof after[0] !== 'number')
          throw invalidField('cursor', 'invalid_format', 'cursor is not a cursor this list returned.');
        return this.repo.list({ ...range, beforeMinute: after ? Number(after[0]) : undefined }, count);
      },
      (row) => [row.minute],
    );
    return { heartbeats: page.items.map(heartbeatView), next_cursor: page.next_cursor };
  }

  /** Deletes rows older than the retention; how many. Idempotent, so every process may run it. */
  async prune(): Promise<number> {
    const cutoff = Math.floor((this.clock.now().getTime() - HEARTBEAT_RETENTION_MS) / MINUTE_MS);
    let total = 0;
    let oldest: number | null;
    while ((oldest = await this.repo.oldestMinuteBefore(cutoff)) !== null)
      total += await this.repo.deleteBefore(Math.min(cutoff, oldest + PRUNE_BATCH_MINUTES));
    return total;
  }

  /** After the device was removed from the inventory: its history goes with it. */
  async forget(deviceId: string): Promise<void> {
    this.recordedMinute.delete(deviceId);
    await this.repo.deleteOfDevice(deviceId);
  }
}
