// The process's Prometheus registry: one per app (tests build many apps in one process, and
// prom-client's global registry would mix them). HTTP traffic is counted as it happens; the
// database-backed gauges are read at scrape time, one snapshot shared by every gauge of a scrape.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../../lib/clock.ts';
import { MESSAGE_STATUSES } from '../messages/lifecycle.ts';
import { registerPhoneMetrics } from './phones.ts';
import type { MetricsRepository, MetricsSnapshot, QueuedCell } from './repository.ts';

/** Cells with a series of their own in the queue gauges; the rest are summed as cell_id="other". */
export const TOP_CELLS = 50;
const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
const HOUR_MS = 3_600_000;
/** Seconds; device long polls hold a request up to 30 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface MetricsDeps {
  repo: MetricsRepository;
  clock: Clock;
  /** Connected event-stream clients of this process. */
  streamClients: () => number;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The deepest TOP_CELLS cells, then one "other" row for the rest (depth summed, oldest kept). */
export function topCells(cells: QueuedCell[], limit = TOP_CELLS): QueuedCell[] {
  if (cells.length <= limit) return cells;
  const rest = cells.slice(limit);
  const other = rest.reduce((acc, c) => ({
    cellId: 'other',
    depth: acc.depth + c.depth,
    oldestCreatedAt: c.oldestCreatedAt < acc.oldestCreatedAt ? c.oldestCreatedAt : acc.oldestCreatedAt,
  }));
  return [...cells.slice(0, limit), { ...other, cellId: 'other' }];
}

export function createMetrics(deps: MetricsDeps) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // One database snapshot per scrape: every gauge's collect() of one scrape starts together and
  // shares the read in flight.
  let inFlight: Promise<MetricsSnapshot> | null = null;
  const snapshot = () => {
    inFlight ??= deps.repo.snapshot(new Date(deps.clock.now().getTime() - HOUR_MS).toISOString()).finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'cellgate_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'cellgate_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });

  new Gauge({
    name: 'cellgate_messages',
    help: 'Messages in the database, by status.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const counts = new Map((await snapshot()).messagesByStatus.map((r) => [r.status, r.count]));
      for (const status of MESSAGE_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'cellgate_queue_depth',
    help: `Queued (unclaimed) outbound messages per cell; the ${TOP_CELLS} deepest cells, the rest as cell_id="other".`,
    labelNames: ['cell_id'] as const,
    registers,
    async collect() {
      this.reset();
      for (const cell of topCells((await snapshot()).queuedByCell)) this.set({ cell_id: cell.cellId }, cell.depth);
    },
  });
  new Gauge({
    name: 'cellgate_queue_oldest_age_seconds',
    help: 'Age of the oldest queued message per cell (same cells as cellgate_queue_depth).',
    labelNames: ['cell_id'] as const,
    registers,
    async collect() {
      this.reset();
      const now = deps.clock.now().getTime();
      for (const cell of topCells((await snapshot()).queuedByCell))
        this.set({ cell_id: cell.cellId }, Math.max(0, (now - Date.parse(cell.oldestCreatedAt)) / 1000));
    },
  });
  new Gauge({
    name: 'cellgate_devices',
    help: 'Phones in the inventory, by presence (online/offline) and whether they carry a cell.',
    labelNames: ['state', 'assigned'] as const,
    registers,
    async collect() {
      this.reset();
      for (const state of ['online', 'offline'])
        for (const assigned of ['true', 'false']) this.set({ state, assigned }, 0);
      for (const row of (await snapshot()).devices)
        this.inc({ state: row.online ? 'online' : 'offline', assigned: String(row.assigned) }, row.count);
    },
  });
  new Gauge({
    name: 'cellgate_webhook_deliveries',
    help: 'Webhook deliveries kept in the database (finished ones are pruned after their retention), by status.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const counts = new Map((await snapshot()).webhookDeliveries.map((r) => [r.status, r.count]));
      for (const status of DELIVERY_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'cellgate_webhook_deliveries_last_hour',
    help: 'Webhook deliveries whose status last changed within the past hour, by status.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const counts = new Map((await snapshot()).webhookDeliveries.map((r) => [r.status, r.lastHour]));
      for (const status of DELIVERY_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
  new Gauge({
    name: 'cellgate_ledger_usd',
    help: 'Ledger totals in USD, by entry kind: credits (positive entries) and debits (negative entries, as a positive sum).',
    labelNames: ['kind', 'direction'] as const,
    registers,
    async collect() {
      this.reset();
      for (const row of (await snapshot()).ledger) {
        this.set({ kind: row.kind, direction: 'credit' }, row.creditMicros / 1e6);
        this.set({ kind: row.kind, direction: 'debit' }, row.debitMicros / 1e6);
      }
    },
  });
  new Gauge({
    name: 'cellgate_event_stream_clients',
    help: 'WebSocket event-stream clients connected to this process.',
    registers,
    collect() {
      this.set(deps.streamClients());
    },
  });

  registerPhoneMetrics({ registers, snapshot, clock: deps.clock });

  return { registry, httpRequests, httpDuration };
}
