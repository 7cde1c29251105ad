// Per-phone series (issue 25 §2) labelled by device id and phone number, and per SIM line (issue
// 34) by sim_number too, read from the scrape's snapshot. Failure codes come from the phone, so
// each phone keeps its TOP_ERROR_CODES most frequent and sums the rest as error_code="other".
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../lib/clock.ts';
import type { MetricsSnapshot, PhoneLine } from './repository.ts';

export const TOP_ERROR_CODES = 10;
/** cellgate_device_health's values. */
export const HEALTH_VALUES = { healthy: 0, degraded: 1, quarantined: 2 } as const;
const LABELS = ['device_id', 'phone_number'] as const;
type PerLineRead = (line: PhoneLine, data: MetricsSnapshot) => [labels: Record<string, string>, value: number];

/** A phone's failures by code: its most frequent `limit` codes, the rest summed as "other"; no code is "unknown". */
export function topErrorCodes(
  rows: Array<{ errorCode: string | null; count: number }>,
  limit = TOP_ERROR_CODES,
): Array<{ errorCode: string; count: number }> {
  const merged = new Map<string, number>();
  for (const row of rows)
    merged.set(row.errorCode ?? 'unknown', (merged.get(row.errorCode ?? 'unknown') ?? 0) + row.count);
  const sorted = [...merged]
    .map(([errorCode, count]) => ({ errorCode, count }))
    .sort((a, b) => b.count - a.count || a.errorCode.localeCompare(b.errorCode));
  if (sorted.length <= limit) return sorted;
  const rest = sorted.slice(limit).reduce((sum, row) => sum + row.count, 0);
  return [...sorted.slice(0, limit), { errorCode: 'other', count: rest }];
}

export function registerPhoneMetrics(deps: {
  registers: Registry[];
  snapshot: () => Promise<MetricsSnapshot>;
  clock: Clock;
}): void {
  const { registers, snapshot } = deps;
  const labelsOf = (phone: { deviceId: string; phoneNumber: string }) => ({
    device_id: phone.deviceId,
    phone_number: phone.phoneNumber,
  });

  /** A gauge with one series per phone; `read` returning null leaves the phone out (nothing reported yet). */
  const perPhone = (
    name: string,
    help: string,
    read: (phone: MetricsSnapshot['phones'][number], data: MetricsSnapshot) => number | null,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: LABELS,
      registers,
      async collect() {
        this.reset();
        const data = await snapshot();
        for (const phone of data.phones) {
          const value = read(phone, data);
          if (value !== null) this.set(labelsOf(phone), value);
        }
      },
    });

  perPhone('cellgate_device_online', 'Whether the phone is online (1) or offline (0: silent for 120 s).', (phone) =>
    phone.online ? 1 : 0,
  );
  perPhone(
    'cellgate_device_heartbeat_age_seconds',
    'Seconds since the phone last called in (heartbeat or poll); absent for a phone that never did.',
    (phone) =>
      phone.lastSeenAt === null
        ? null
        : Math.max(0, (deps.clock.now().getTime() - Date.parse(phone.lastSeenAt)) / 1000),
  );
  perPhone(
    'cellgate_device_battery_percent',
    'Battery level the phone last reported, 0-100.',
    (phone) => phone.batteryPct,
  );
  perPhone('cellgate_device_charging', 'Whether the phone last reported charging (1) or not (0).', (phone) =>
    phone.charging === null ? null : phone.charging ? 1 : 0,
  );
  perPhone(
    'cellgate_device_signal_dbm',
    'Signal strength the phone last reported, in dBm.',
    (phone) => phone.signalDbm,
  );
  const depthOf = (data: MetricsSnapshot, cellId: string | null) =>
    cellId === null ? 0 : (data.queuedByCell.find((cell) => cell.cellId === cellId)?.depth ?? 0);
  perPhone(
    'cellgate_device_queue_depth',
    'Queued (unclaimed) outbound messages of the cells the phone carries (one per SIM line); 0 without a cell.',
    (phone, data) => phone.lines.reduce((sum, line) => sum + depthOf(data, line.cellId), 0),
  );

  // Per SIM line (at most two a phone): which carries a cell, and that cell's queue.
  const perLine = (name: string, help: string, labelNames: readonly string[], read: PerLineRead) =>
    new Gauge({
      name,
      help,
      labelNames: [...LABELS, 'sim_number', ...labelNames],
      registers,
      async collect() {
        this.reset();
        const data = await snapshot();
        for (const phone of data.phones)
          for (const line of phone.lines) {
            const [labels, value] = read(line, data);
            this.set({ ...labelsOf(phone), sim_number: String(line.simNumber), ...labels }, value);
          }
      },
    });
  perLine(
    'cellgate_device_sim_cell',
    "Whether the phone's SIM line carries a cell (1) or not (0: no number yet, or no cell waiting); sim_phone_number is empty until the line has a number.",
    ['sim_phone_number'],
    (line) => [{ sim_phone_number: line.phoneNumber ?? '' }, line.cellId === null ? 0 : 1],
  );
  perLine(
    'cellgate_device_sim_queue_depth',
    "Queued (unclaimed) outbound messages of the cell the phone's SIM line carries; 0 without a cell.",
    [],
    (line, data) => [{}, depthOf(data, line.cellId)],
  );

  perPhone(
    'cellgate_device_health',
    'Health of the phone decided from its recent sends: 0 healthy, 1 degraded (still sends), 2 quarantined (claims nothing until the operator releases it).',
    (phone) => HEALTH_VALUES[phone.health],
  );
  perPhone(
    'cellgate_device_paused',
    'Whether the operator paused the phone (1: it claims nothing) or not (0).',
    (phone) => (phone.paused ? 1 : 0),
  );

  new Counter({
    name: 'cellgate_device_messages_sent_total',
    help: 'Outbound messages the phone sent.',
    labelNames: LABELS,
    registers,
    async collect() {
      this.reset();
      const data = await snapshot();
      const sent = new Map(data.sentByPhone.map((row) => [row.deviceId, row.count]));
      for (const phone of data.phones) this.inc(labelsOf(phone), sent.get(phone.deviceId) ?? 0);
    },
  });
  new Counter({
    name: 'cellgate_device_messages_failed_total',
    help: `Messages that failed on the phone, by error code (its ${TOP_ERROR_CODES} most frequent; the rest as "other").`,
    labelNames: [...LABELS, 'error_code'] as const,
    registers,
    async collect() {
      this.reset();
      const data = await snapshot();
      const phones = new Map(data.phones.map((phone) => [phone.deviceId, phone]));
      const byPhone = new Map<string, Array<{ errorCode: string | null; count: number }>>();
      for (const row of data.failedByPhone) byPhone.set(row.deviceId, [...(byPhone.get(row.deviceId) ?? []), row]);
      for (const [deviceId, rows] of byPhone) {
        const phone = phones.get(deviceId);
        // A removed phone's messages keep its id; it has no series any more.
        if (!phone) continue;
        for (const row of topErrorCodes(rows)) this.inc({ ...labelsOf(phone), error_code: row.errorCode }, row.count);
      }
    },
  });
}
