import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';

const ADMIN_ROUTES = [
  ['GET', '/v1/admin/devices'],
  ['POST', '/v1/admin/devices'],
  ['GET', '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz'],
  ['PATCH', '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz'],
  ['DELETE', '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz'],
  ['POST', '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz/rotate-key'],
  ['GET', '/v1/admin/devices/dev_01jzzzzzzzzzzzzzzzzzzzzzzz/heartbeats'],
] as const;

describe('device inventory and device surface: credentials', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  for (const [method, url] of ADMIN_ROUTES) {
    it(`${method} ${url}: an agent key is 403, no credential and a device key are 401`, async () => {
      const org = await activeOrganization(t);
      const device = await addDevice(t);
      const payload = method === 'GET' || method === 'DELETE' ? undefined : { phone_number: '+14155550123' };
      expectProblem(await t.app.inject({ method, url, headers: org.headers, payload }), 403, 'forbidden');
      expectProblem(await t.app.inject({ method, url, payload }), 401, 'unauthenticated');
      expectProblem(
        await t.app.inject({ method, url, headers: { authorization: `Bearer ${device.key}` }, payload }),
        401,
        'unauthenticated',
      );
      expectProblem(await t.app.inject({ method, url, headers: device.headers, payload }), 401, 'unauthenticated');
    });
  }

  it('the agent key on POST /v1/admin/devices adds nothing', async () => {
    const org = await activeOrganization(t);
    await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: org.headers,
      payload: { phone_number: '+14155550177' },
    });
    const list = (await t.app.inject({ url: '/v1/admin/devices?limit=200', headers: admin })).json();
    assert.ok(!list.devices.some((d: { phone_number: string }) => d.phone_number === '+14155550177'));
  });

  for (const [label, headers] of [
    ['no credential', {}],
    ['an admin token as bearer', admin],
    ['an admin token in X-Phone-Key', { 'x-phone-key': admin.authorization.slice(7) }],
    ['an unknown device key', { 'x-phone-key': `cg_dev_${'A'.repeat(32)}` }],
    ['a malformed device key', { 'x-phone-key': 'cg_dev_short' }],
  ] as const) {
    it(`${label} on /v1/device/heartbeat is 401`, async () => {
      expectProblem(
        await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers, payload: {} }),
        401,
        'unauthenticated',
      );
    });
  }

  it('an agent key on /v1/device/heartbeat is 401', async () => {
    const org = await activeOrganization(t);
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: org.headers, payload: {} }),
      401,
      'unauthenticated',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/device/heartbeat',
        headers: { 'x-phone-key': org.apiKey },
        payload: {},
      }),
      401,
      'unauthenticated',
    );
  });

  it('a device key on the customer surface is 401', async () => {
    const device = await addDevice(t);
    expectProblem(await t.app.inject({ url: '/v1/cells', headers: device.headers }), 401, 'unauthenticated');
    expectProblem(
      await t.app.inject({ url: '/v1/cells', headers: { authorization: `Bearer ${device.key}` } }),
      401,
      'unauthenticated',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: { authorization: `Bearer ${device.key}` },
        payload: { display_name: 'x' },
      }),
      401,
      'unauthenticated',
    );
  });

  it("a removed device's key is 401", async () => {
    const device = await addDevice(t);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers })).statusCode,
      200,
    );
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${device.id}`, headers: admin })).statusCode,
      204,
    );
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers }),
      401,
      'unauthenticated',
    );
  });

  it('an unauthenticated heartbeat marks nothing seen', async () => {
    const device = await addDevice(t);
    await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: { 'x-phone-key': `${device.key.slice(0, -1)}${device.key.endsWith('x') ? 'y' : 'x'}` },
    });
    const view = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(view.online, false);
    assert.equal(view.last_seen_at, null);
  });
});
