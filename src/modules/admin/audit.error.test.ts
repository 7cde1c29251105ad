// Bad input on the operator audit log and the audited actions: list bounds, forged cursors,
// credentials other than an admin token, an empty reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';

describe('operator audit log: bad input', () => {
  const t = useApp();

  for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?cursor=not-a-cursor', '?target_id=', '?since=x']) {
    it(`answers 400 invalid_request for ${query}`, async () => {
      expectProblem(await t.app.inject({ url: `/v1/admin/audit${query}`, headers: admin }), 400, 'invalid_request');
    });
  }

  it('is 401 without a credential and 403 for an agent key', async () => {
    expectProblem(await t.app.inject({ url: '/v1/admin/audit' }), 401, 'unauthenticated');
    const org = await verifiedOrganization(t);
    expectProblem(await t.app.inject({ url: '/v1/admin/audit', headers: org.headers }), 403, 'forbidden');
  });

  it('refuses an empty or blank reason on a key rotation and records nothing', async () => {
    const device = await addDevice(t);
    for (const reason of ['', '   ', 'x'.repeat(501)]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/admin/devices/${device.id}/rotate-key`,
        headers: admin,
        payload: { reason },
      });
      const problem = expectProblem(response, 400, 'invalid_request');
      assert.equal(problem.errors[0].field, 'reason');
    }
    const page = (await t.app.inject({ url: `/v1/admin/audit?target_id=${device.id}`, headers: admin })).json();
    assert.deepEqual(page.entries, []);
  });

  it('records nothing when the action fails (unknown device)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices/dev_01jdx1f2g3h4j5k6m7n8p9q0r1/rotate-key',
      headers: admin,
      payload: { reason: 'gone' },
    });
    expectProblem(response, 404, 'not_found');
    const page = (
      await t.app.inject({ url: '/v1/admin/audit?target_id=dev_01jdx1f2g3h4j5k6m7n8p9q0r1', headers: admin })
    ).json();
    assert.deepEqual(page.entries, []);
  });
});
