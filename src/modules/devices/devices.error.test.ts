import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { addDevice } from '../../../test/support/devices.ts';

const post = (t: TestApp, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/v1/admin/devices', headers: admin, payload: payload as object });

describe('device inventory: bad input', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  for (const phoneNumber of [
    '+15551234567', // 555 is not a NANP area code
    '4155552671', // national format: no country
    '+1415555267', // too short
    '+141555526710', // too long
    'not a number',
    '+14155552671 ext. 5',
    'call +14155552671',
    '+14155552671abc',
    '+999123456',
  ]) {
    it(`rejects phone_number ${JSON.stringify(phoneNumber)} with invalid_phone_number`, async () => {
      const body = expectProblem(await post(t, { phone_number: phoneNumber }), 400, 'invalid_request');
      assert.deepEqual(
        body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['phone_number', 'invalid_phone_number']],
      );
    });
  }

  for (const [label, payload, field, code] of [
    ['a missing phone_number', {}, 'phone_number', 'required'],
    ['a numeric phone_number', { phone_number: 14155552671 }, 'phone_number', 'invalid_type'],
    ['an empty phone_number', { phone_number: '' }, 'phone_number', 'too_short'],
    [
      'a send rate of 0',
      { phone_number: '+14155550100', send_rate_per_minute: 0 },
      'send_rate_per_minute',
      'out_of_range',
    ],
    [
      'a send rate of 601',
      { phone_number: '+14155550100', send_rate_per_minute: 31 },
      'send_rate_per_minute',
      'out_of_range',
    ],
    [
      'a fractional send rate',
      { phone_number: '+14155550100', send_rate_per_minute: 2.5 },
      'send_rate_per_minute',
      'invalid_type',
    ],
    [
      'a send rate as a string',
      { phone_number: '+14155550100', send_rate_per_minute: '20' },
      'send_rate_per_minute',
      'invalid_type',
    ],
    ['an empty label', { phone_number: '+14155550100', label: '' }, 'label', 'too_short'],
    ['a 101-character label', { phone_number: '+14155550100', label: 'x'.repeat(101) }, 'label', 'too_long'],
    ['an unknown field', { phone_number: '+14155550100', cell_id: 'cell_x' }, 'cell_id', 'unknown_field'],
  ] as const) {
    it(`rejects ${label}`, async () => {
      const body = expectProblem(await post(t, payload), 400, 'invalid_request');
      assert.ok(
        body.errors.some((e: { field: string; code: string }) => e.field === field && e.code === code),
        `expected ${field}/${code} in ${JSON.stringify(body.errors)}`,
      );
    });
  }

  it('nothing is written by a rejected add', async () => {
    const count = await t.database.db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  it('a duplicate phone number is 409 conflict, however it is written', async () => {
    assert.equal((await post(t, { phone_number: '+14155552671' })).statusCode, 201);
    expectProblem(await post(t, { phone_number: '+14155552671' }), 409, 'conflict');
    expectProblem(await post(t, { phone_number: '+1 415-555-2671' }), 409, 'conflict');
  });

  it('concurrent adds of one number: one 201, the rest 409', async () => {
    const responses = await Promise.all(Array.from({ length: 4 }, () => post(t, { phone_number: '+14155550199' })));
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
  });

  it('PATCH rejects a bad send rate and unknown fields, and changes nothing', async () => {
    const device = await addDevice(t, { send_rate_per_minute: 10 });
    const url = `/v1/admin/devices/${device.id}`;
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { send_rate_per_minute: 0 } }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { send_rate_per_minute: 31 } }),
      400,
      'invalid_request',
    );
    const unknown = expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { phone_number: '+14155550111' } }),
      400,
      'invalid_request',
    );
    assert.equal(unknown.errors[0].code, 'unknown_field');
    const view = (await t.app.inject({ url, headers: admin })).json();
    assert.equal(view.send_rate_per_minute, 10);
  });

  it('an unknown device is 404 on read, patch, delete and rotate', async () => {
    const url = '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz';
    expectProblem(await t.app.inject({ url, headers: admin }), 404, 'not_found');
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { label: 'x' } }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ method: 'DELETE', url, headers: admin }), 404, 'not_found');
    expectProblem(await t.app.inject({ method: 'POST', url: `${url}/rotate-key`, headers: admin }), 404, 'not_found');
  });

  it('a bad cursor is 400', async () => {
    expectProblem(
      await t.app.inject({ url: '/v1/admin/devices?cursor=garbage', headers: admin }),
      400,
      'invalid_request',
    );
    expectProblem(await t.app.inject({ url: '/v1/admin/devices?limit=0', headers: admin }), 400, 'invalid_request');
  });
});

describe('removing a phone that carries a cell', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('deleting a phone that carries a cell is 409; after the cell is released it is 204', async () => {
    const device = await addDevice(t);
    const org = await activeOrganization(t);
    const cell = await createCell(t, org.headers);
    assert.equal(cell.phone_number, device.phoneNumber);
    const url = `/v1/admin/devices/${device.id}`;
    expectProblem(await t.app.inject({ method: 'DELETE', url, headers: admin }), 409, 'conflict');
    assert.equal((await t.app.inject({ url, headers: admin })).json().cell_id, cell.id);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${cell.id}`, headers: org.headers })).statusCode,
      200,
    );
    assert.equal((await t.app.inject({ method: 'DELETE', url, headers: admin })).statusCode, 204);
  });
});

describe('device heartbeat: bad input', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  for (const [label, payload, field, code] of [
    ['battery_pct -1', { battery_pct: -1 }, 'battery_pct', 'out_of_range'],
    ['battery_pct 101', { battery_pct: 101 }, 'battery_pct', 'out_of_range'],
    ['a fractional battery_pct', { battery_pct: 50.5 }, 'battery_pct', 'invalid_type'],
    ['signal_dbm 1', { signal_dbm: 1 }, 'signal_dbm', 'out_of_range'],
    ['signal_dbm -151', { signal_dbm: -151 }, 'signal_dbm', 'out_of_range'],
    ['charging as a string', { charging: 'yes' }, 'charging', 'invalid_type'],
    ['a 65-character app_version', { app_version: 'v'.repeat(65) }, 'app_version', 'too_long'],
    ['an empty app_version', { app_version: '' }, 'app_version', 'too_short'],
    ['an unknown field', { temperature: 40 }, 'temperature', 'unknown_field'],
  ] as const) {
    it(`rejects ${label} and stores nothing`, async () => {
      const device = await addDevice(t);
      const body = expectProblem(
        await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers, payload }),
        400,
        'invalid_request',
      );
      assert.ok(
        body.errors.some((e: { field: string; code: string }) => e.field === field && e.code === code),
        JSON.stringify(body.errors),
      );
      const view = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
      assert.deepEqual([view.battery_pct, view.charging, view.signal_dbm, view.app_version], [null, null, null, null]);
    });
  }

  it('a body that is not JSON is 400', async () => {
    const device = await addDevice(t);
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: { ...device.headers, 'content-type': 'application/json' },
      payload: '{"battery_pct":',
    });
    expectProblem(response, 400, 'invalid_request');
  });
});
