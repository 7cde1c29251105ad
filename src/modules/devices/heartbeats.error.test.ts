import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { addDevice, type TestDevice } from '../../../test/support/devices.ts';
import { encodeCursor } from '../../lib/pagination.ts';

describe('heartbeat history: bad input', () => {
  let t: TestApp;
  let device: TestDevice;
  const read = (query: string) =>
    t.app.inject({ url: `/v1/admin/devices/${device.id}/heartbeats${query}`, headers: admin });
  before(async () => {
    t = await startApp();
    device = await addDevice(t);
  });
  after(() => t.close());

  it('an unknown device is 404', async () => {
    expectProblem(
      await t.app.inject({ url: '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz/heartbeats', headers: admin }),
      404,
      'not_found',
    );
  });

  for (const [label, query, field, code] of [
    ['a from that is not a date-time', '?from=yesterday', 'from', 'invalid_format'],
    ['a from without a time zone', '?from=2026-11-21T12:00:00', 'from', 'invalid_format'],
    ['a to that is not a date-time', '?to=2026-13-40T00:00:00Z', 'to', 'invalid_format'],
    ['a from after to', '?from=2026-11-21T12:00:00Z&to=2026-11-21T11:00:00Z', 'from', 'invalid_range'],
    ['a from equal to to', '?from=2026-11-21T12:00:00Z&to=2026-11-21T12:00:00.000Z', 'from', 'invalid_range'],
    ['a limit of 0', '?limit=0', 'limit', 'out_of_range'],
    ['a limit of 201', '?limit=201', 'limit', 'out_of_range'],
    ['a cursor that is not one', '?cursor=garbage', 'cursor', 'invalid_format'],
    [
      'a cursor of another list (a string key)',
      `?cursor=${encodeCursor(['dev_01jzzzzzzzzzzzzzzzzzzzzzzz'])}`,
      'cursor',
      'invalid_format',
    ],
    ['a cursor with two parts', `?cursor=${encodeCursor([1, 2])}`, 'cursor', 'invalid_format'],
  ] as const) {
    it(`rejects ${label} with 400 ${field}/${code}`, async () => {
      const body = expectProblem(await read(query), 400, 'invalid_request');
      assert.ok(
        body.errors.some((e: { field: string; code: string }) => e.field === field && e.code === code),
        JSON.stringify(body.errors),
      );
    });
  }

  for (const [label, payload] of [
    ['battery_pct 101', { battery_pct: 101, signal_dbm: -70 }],
    ['battery_pct -1', { battery_pct: -1 }],
    ['signal_dbm 1', { battery_pct: 50, signal_dbm: 1 }],
    ['signal_dbm -151', { signal_dbm: -151 }],
  ] as const) {
    it(`a heartbeat with ${label} is 400 and adds nothing to the history`, async () => {
      const phone = await addDevice(t);
      expectProblem(
        await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: phone.headers, payload }),
        400,
        'invalid_request',
      );
      const page = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}/heartbeats`, headers: admin })).json();
      assert.deepEqual(page, { heartbeats: [], next_cursor: null });
    });
  }
});
