// The SQL behind the scrape-time gauges: a handful of grouped reads, each over an index or a small
// table. Read-only and across modules' tables on purpose: the counts are the operator's view of
// the whole database, and routing them through five services would add a method to each that
// nothing else calls.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface QueuedCell {
  cellId: string;
  depth: number;
  oldestCreatedAt: string;
}

export interface PhoneLine {
  simNumber: number;
  phoneNumber: string | null;
  cellId: string | null;
}

export type MetricsSnapshot = Awaited<ReturnType<MetricsRepository['snapshot']>>;

export class MetricsRepository {
  private readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /** One read per family; `hourAgo` bounds the recent webhook deliveries (ISO time). */
  async snapshot(hourAgo: string) {
    const [messagesByStatus, queuedByCell, devices, webhookDeliveries, ledger, phones, sentByPhone, failedByPhone] =
      await Promise.all([
        this.messagesByStatus(),
        this.queuedByCell(),
        this.devices(),
        this.webhookDeliveries(hourAgo),
        this.ledger(),
        this.phones(),
        this.sentByPhone(),
        this.failedByPhone(),
      ]);
    return { messagesByStatus, queuedByCell, devices, webhookDeliveries, ledger, phones, sentByPhone, failedByPhone };
  }

  private async messagesByStatus() {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute();
    return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
  }

  /** Every cell with queued messages, deepest first; they are few (the partial index messages_expiry holds exactly them). */
  private async queuedByCell(): Promise<QueuedCell[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['cell_id', eb.fn.countAll<number | string>().as('depth'), eb.fn.min('created_at').as('oldest')])
      .where('status', '=', 'queued')
      .groupBy('cell_id')
      .execute();
    return rows
      .map((r) => ({ cellId: r.cell_id, depth: Number(r.depth), oldestCreatedAt: r.oldest }))
      .sort((a, b) => b.depth - a.depth || a.cellId.localeCompare(b.cellId));
  }

  private async devices() {
    const rows = await this.db
      .selectFrom('devices')
      .select((eb) => [
        'online',
        eb('cell_id', 'is not', null).as('assigned'),
        eb.fn.countAll<number | string>().as('n'),
      ])
      .groupBy(['online', (eb) => eb('cell_id', 'is not', null)])
      .execute();
    return rows.map((r) => ({ online: Boolean(r.online), assigned: Boolean(r.assigned), count: Number(r.n) }));
  }

  /** Each phone's presence, last telemetry and SIM lines (a phone of the native surface has one, its number). */
  private async phones() {
    const [rows, sims] = await Promise.all([this.phoneRows(), this.simLines()]);
    const linesOf = new Map<string, PhoneLine[]>();
    for (const sim of sims)
      linesOf.set(sim.device_id, [
        ...(linesOf.get(sim.device_id) ?? []),
        { simNumber: sim.sim_number, phoneNumber: sim.phone_number, cellId: sim.cell_id },
      ]);
    return rows.map((r) => ({
      deviceId: r.id,
      // An SMSGate phone none of whose lines has a known number yet (contract §13).
      phoneNumber: r.phone_number ?? '',
      cellId: r.cell_id,
      online: r.online === 1,
      lastSeenAt: r.last_seen_at,
      batteryPct: r.battery_pct,
      charging: r.charging === null ? null : r.charging === 1,
      signalDbm: r.signal_dbm,
      health: r.health,
      paused: r.paused === 1,
      lines: linesOf.get(r.id) ?? [{ simNumber: 1, phoneNumber: r.phone_number, cellId: r.cell_id }],
    }));
  }

  private phoneRows() {
    return this.db
      .selectFrom('devices')
      .select([
        'id',
        'phone_number',
        'cell_id',
        'online',
        'last_seen_at',
        'battery_pct',
        'charging',
        'signal_dbm',
        'health',
        'paused',
      ])
      .orderBy('id')
      .execute();
  }

  /** The SIM lines of SMSGate phones (two at most each: a table as small as the inventory). */
  private simLines() {
    return this.db
      .selectFrom('device_sims')
      .select(['device_id', 'sim_number', 'phone_number', 'cell_id'])
      .orderBy('device_id')
      .orderBy('sim_number')
      .execute();
  }

  /** Messages each phone sent, ever (device_id is set at the claim, cleared only by a re-queue). */
  private async sentByPhone() {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['device_id', eb.fn.countAll<number | string>().as('n')])
      .where('device_id', 'is not', null)
      .where('sent_at', 'is not', null)
      .groupBy('device_id')
      .execute();
    return rows.map((r) => ({ deviceId: r.device_id as string, count: Number(r.n) }));
  }

  /** Failed messages each phone last held, by error code (null: none given). */
  private async failedByPhone() {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['device_id', 'error_code', eb.fn.countAll<number | string>().as('n')])
      .where('device_id', 'is not', null)
      .where('status', '=', 'failed')
      .groupBy(['device_id', 'error_code'])
      .execute();
    return rows.map((r) => ({ deviceId: r.device_id as string, errorCode: r.error_code, count: Number(r.n) }));
  }

  /** Finished deliveries are pruned after their retention, so this reads a bounded table. */
  private async webhookDeliveries(hourAgo: string) {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [
        'status',
        eb.fn.countAll<number | string>().as('n'),
        eb.fn
          .sum<number | string | null>(eb.case().when('updated_at', '>=', hourAgo).then(1).else(0).end())
          .as('recent'),
      ])
      .groupBy('status')
      .execute();
    return rows.map((r) => ({ status: r.status, count: Number(r.n), lastHour: Number(r.recent ?? 0) }));
  }

  private async ledger() {
    const rows = await this.db
      .selectFrom('ledger_entries')
      .select((eb) => [
        'kind',
        eb.fn
          .sum<number | string | null>(
            eb.case().when('amount_micros', '>', 0).then(eb.ref('amount_micros')).else(0).end(),
          )
          .as('credits'),
        eb.fn
          .sum<number | string | null>(
            eb
              .case()
              .when('amount_micros', '<', 0)
              .then(eb.neg(eb.ref('amount_micros')))
              .else(0)
              .end(),
          )
          .as('debits'),
      ])
      .groupBy('kind')
      .execute();
    return rows.map((r) => ({
      kind: r.kind,
      creditMicros: Number(r.credits ?? 0),
      debitMicros: Number(r.debits ?? 0),
    }));
  }
}
