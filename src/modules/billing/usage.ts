// Usage (contract §7): one priced record per billable unit, written in the transaction of what it
// bills (Phase B of issue 12); here, the reads: records, a summary by type and totals per day.
import type { Clock } from '../../lib/clock.ts';
import { invalidField } from '../../lib/errors.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import { usdExact } from './money.ts';
import type { BillingRepository, UsageFilter } from './repository.ts';
import type { UsageRecordsTable } from './tables.ts';

export const USAGE_TYPES = ['sms', 'mms', 'cell_month'] as const;
const DEFAULT_RANGE_MS = 30 * 24 * 3600 * 1000;

export type UsageRange = { from?: string; to?: string };

function usageView(row: UsageRecordsTable) {
  return {
    id: row.id,
    type: row.type,
    cell_id: row.cell_id,
    message_id: row.message_id,
    quantity: Number(row.quantity),
    unit_price_usd: usdExact(Number(row.unit_price_micros)),
    amount_usd: usdExact(Number(row.amount_micros)),
    created_at: row.created_at,
  };
}

export class UsageService {
  private readonly deps: { repo: BillingRepository; clock: Clock };

  constructor(deps: UsageService['deps']) {
    this.deps = deps;
  }

  /** [from, to): `to` defaults to now, `from` to 30 days before `to`. */
  private range(query: UsageRange): { from: string; to: string } {
    const parse = (field: 'from' | 'to', value: string | undefined, fallback: Date): Date => {
      if (value === undefined) return fallback;
      const date = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)
        ? new Date(value)
        : new Date(NaN);
      if (Number.isNaN(date.getTime()))
        throw invalidField(field, 'invalid_format', `${field} must be a date (2026-11-01) or an ISO 8601 date-time.`);
      return date;
    };
    const to = parse('to', query.to, new Date(this.deps.clock.now().getTime() + 1));
    const from = parse('from', query.from, new Date(to.getTime() - DEFAULT_RANGE_MS));
    if (from >= to) throw invalidField('from', 'invalid_range', 'from must be before to.');
    return { from: from.toISOString(), to: to.toISOString() };
  }

  async records(
    organizationId: string,
    query: UsageRange & PageQuery & { cell_id?: string; type?: UsageRecordsTable['type'] },
  ) {
    const filter: UsageFilter = { organizationId, ...this.range(query), cellId: query.cell_id, type: query.type };
    const page = await listPage(
      query,
      (after, count) => this.deps.repo.listUsage(filter, after, count),
      (row) => [row.created_at, row.id],
      2,
    );
    return { usage_records: page.items.map(usageView), next_cursor: page.next_cursor };
  }

  async summary(organizationId: string, query: UsageRange) {
    const range = this.range(query);
    const rows = await this.deps.repo.usageByType({ organizationId, ...range });
    const by_type = USAGE_TYPES.map((type) => {
      const row = rows.find((r) => r.type === type);
      return {
        type,
        quantity: Number(row?.quantity ?? 0),
        records: Number(row?.records ?? 0),
        amount_usd: usdExact(Number(row?.amount ?? 0)),
      };
    });
    return { ...range, amount_usd: usdExact(rows.reduce((sum, row) => sum + Number(row.amount), 0)), by_type };
  }

  async daily(organizationId: string, query: UsageRange) {
    const range = this.range(query);
    const rows = await this.deps.repo.usageByDay({ organizationId, ...range });
    const days = new Map<
      string,
      { date: string; amount: number; by_type: { type: string; quantity: number; amount_usd: string }[] }
    >();
    for (const row of rows) {
      const day = days.get(row.day) ?? { date: row.day, amount: 0, by_type: [] };
      day.amount += Number(row.amount);
      day.by_type.push({ type: row.type, quantity: Number(row.quantity), amount_usd: usdExact(Number(row.amount)) });
      days.set(row.day, day);
    }
    return {
      ...range,
      days: [...days.values()].map(({ amount, ...day }) => ({ ...day, amount_usd: usdExact(amount) })),
    };
  }
}
