import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { atEpoch, useApp, verifiedOrganization } from '../../../test/harness.ts';
import type { UsageRecordsTable } from './tables.ts';

type Org = Awaited<ReturnType<typeof verifiedOrganization>>;
const HOUR = 3600 * 1000;

describe('usage reads', () => {
  let org: Org;
  let other: Org;
  const t = useApp();
  before(async () => {
    org = await verifiedOrganization(t);
    other = await verifiedOrganization(t);
    // Usage records are written by the sends they bill; here, directly.
    const row = (
      id: string,
      organizationId: string,
      type: UsageRecordsTable['type'],
      quantity: number,
      unit: number,
      at: number,
      cellId = 'cell_a',
    ): UsageRecordsTable => ({
      id,
      organization_id: organizationId,
      cell_id: cellId,
      message_id: `msg_${id}`,
      type,
      quantity,
      unit_price_micros: unit,
      amount_micros: unit * quantity,
      created_at: atEpoch(at),
    });
    await t.database.db
      .insertInto('usage_records')
      .values([
        row('usg_1', org.organizationId, 'sms', 2, 10_000, -48 * HOUR),
        row('usg_2', org.organizationId, 'mms', 1, 30_000, -48 * HOUR, 'cell_b'),
        row('usg_3', org.organizationId, 'sms', 1, 10_000, -1 * HOUR),
        row('usg_4', org.organizationId, 'sms', 3, 5_000, -40 * 24 * HOUR),
        row('usg_5', other.organizationId, 'sms', 7, 10_000, -1 * HOUR),
      ])
      .execute();
  });

  const get = async (url: string, headers = org.headers) => {
    const response = await t.app.inject({ method: 'GET', url, headers });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('sums the last 30 days by type by default, leaving out older records and other organizations', async () => {
    const body = await get('/v1/usage/summary');
    assert.equal(body.amount_usd, '0.06');
    assert.deepEqual(body.by_type, [
      { type: 'sms', quantity: 3, records: 2, amount_usd: '0.03' },
      { type: 'mms', quantity: 1, records: 1, amount_usd: '0.03' },
      { type: 'cell_month', quantity: 0, records: 0, amount_usd: '0.00' },
    ]);
  });

  it('sums an explicit period with sub-cent prices exactly', async () => {
    const body = await get(`/v1/usage/summary?from=${atEpoch(-50 * 24 * HOUR)}&to=${atEpoch(-30 * 24 * HOUR)}`);
    assert.equal(body.amount_usd, '0.015');
    assert.equal(body.from, atEpoch(-50 * 24 * HOUR));
  });

  it('lists records newest first with their prices, and filters by cell and type', async () => {
    const all = await get('/v1/usage/records');
    assert.deepEqual(
      all.usage_records.map((r: { id: string }) => r.id),
      ['usg_3', 'usg_2', 'usg_1'],
    );
    assert.deepEqual(all.usage_records[2], {
      id: 'usg_1',
      type: 'sms',
      cell_id: 'cell_a',
      message_id: 'msg_usg_1',
      quantity: 2,
      unit_price_usd: '0.01',
      amount_usd: '0.02',
      created_at: atEpoch(-48 * HOUR),
    });
    assert.deepEqual(
      (await get('/v1/usage/records?cell_id=cell_b')).usage_records.map((r: { id: string }) => r.id),
      ['usg_2'],
    );
    assert.deepEqual(
      (await get('/v1/usage/records?type=sms')).usage_records.map((r: { id: string }) => r.id),
      ['usg_3', 'usg_1'],
    );
  });

  it('pages records with a cursor', async () => {
    const first = await get('/v1/usage/records?limit=2');
    assert.equal(first.usage_records.length, 2);
    const second = await get(`/v1/usage/records?limit=2&cursor=${first.next_cursor}`);
    assert.deepEqual(
      second.usage_records.map((r: { id: string }) => r.id),
      ['usg_1'],
    );
    assert.equal(second.next_cursor, null);
  });

  it('totals usage per UTC day', async () => {
    const body = await get('/v1/usage/daily');
    assert.deepEqual(body.days, [
      {
        date: atEpoch(-48 * HOUR).slice(0, 10),
        amount_usd: '0.05',
        by_type: [
          { type: 'mms', quantity: 1, amount_usd: '0.03' },
          { type: 'sms', quantity: 2, amount_usd: '0.02' },
        ],
      },
      {
        date: atEpoch(-HOUR).slice(0, 10),
        amount_usd: '0.01',
        by_type: [{ type: 'sms', quantity: 1, amount_usd: '0.01' }],
      },
    ]);
  });

  it('answers an empty period with zeros', async () => {
    const body = await get(`/v1/usage/summary?from=2020-01-01&to=2020-02-01`);
    assert.equal(body.amount_usd, '0.00');
    assert.deepEqual((await get('/v1/usage/daily?from=2020-01-01&to=2020-02-01')).days, []);
    assert.deepEqual((await get('/v1/usage/records?from=2020-01-01&to=2020-02-01')).usage_records, []);
  });
});
