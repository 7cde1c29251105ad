import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, bearer, expectProblem, signUp, useApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';
import { createCell } from '../../../test/support/cells.ts';

describe('cells: credentials and organizations', () => {
  const t = useApp();

  it("another organization's cell is 404 on read, patch and delete, and is left untouched", async () => {
    const owner = await activeOrganization(t);
    const intruder = await activeOrganization(t);
    await addDevice(t);
    const cell = await createCell(t, owner.headers, 'mine');
    const url = `/v1/cells/${cell.id}`;
    expectProblem(await t.app.inject({ url, headers: intruder.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({ method: 'PATCH', url, headers: intruder.headers, payload: { display_name: 'theirs' } }),
      404,
      'not_found',
    );
    expectProblem(await t.app.inject({ method: 'DELETE', url, headers: intruder.headers }), 404, 'not_found');
    const list = (await t.app.inject({ url: '/v1/cells', headers: intruder.headers })).json();
    assert.deepEqual(list.cells, []);
    assert.deepEqual((await t.app.inject({ url, headers: owner.headers })).json(), cell);
  });

  for (const [method, url] of [
    ['GET', '/v1/cells'],
    ['POST', '/v1/cells'],
    ['GET', '/v1/cells/cell_01jzzzzzzzzzzzzzzzzzzzzzzz'],
    ['PATCH', '/v1/cells/cell_01jzzzzzzzzzzzzzzzzzzzzzzz'],
    ['DELETE', '/v1/cells/cell_01jzzzzzzzzzzzzzzzzzzzzzzz'],
  ] as const) {
    it(`${method} ${url}: no credential, a device key and an admin token are 401; an unverified organization is 403`, async () => {
      const device = await addDevice(t);
      const payload = method === 'POST' || method === 'PATCH' ? { display_name: 'x' } : undefined;
      expectProblem(await t.app.inject({ method, url, payload }), 401, 'unauthenticated');
      expectProblem(await t.app.inject({ method, url, headers: device.headers, payload }), 401, 'unauthenticated');
      expectProblem(await t.app.inject({ method, url, headers: bearer(device.key), payload }), 401, 'unauthenticated');
      expectProblem(await t.app.inject({ method, url, headers: admin, payload }), 401, 'unauthenticated');
      const unverified = await signUp(t);
      expectProblem(
        await t.app.inject({ method, url, headers: bearer(unverified.apiKey), payload }),
        403,
        'organization_unverified',
      );
    });
  }

  it('a rejected create takes no phone', async () => {
    const device = await addDevice(t);
    const unverified = await signUp(t);
    await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: bearer(unverified.apiKey),
      payload: { display_name: 'x' },
    });
    await t.app.inject({ method: 'POST', url: '/v1/cells', headers: device.headers, payload: { display_name: 'x' } });
    assert.equal((await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json().cell_id, null);
  });
});
