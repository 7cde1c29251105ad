// Bad input on the operator audit log and the audited actions: list bounds, forged cursors,
// credentials other than an admin token, an empty reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, useApp, verifiedOrganization } from '../../../test/harness.ts';
import { addDevice, auditSinceAdded } from '../../../test/support/devices.ts';
import { activeLine } from '../../../test/support/messages.ts';

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
    assert.deepEqual(await auditSinceAdded(t, device.id), []);
  });

  it('records nothing when an operator webhook change is refused', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: 'refused', url: 'ftp://ops.example.com/hooks' },
    });
    expectProblem(bad, 400, 'invalid_request');
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: 'kept', url: 'https://ops.example.com/hooks' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    expectProblem(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/admin/webhooks/${id}`,
        headers: admin,
        payload: { url: 'ftp://x' },
      }),
      400,
      'invalid_request',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/v1/admin/webhooks/${id}/deliveries/dlv_01jdx1f2g3h4j5k6m7n8p9q0r1/retry`,
        headers: admin,
      }),
      404,
      'not_found',
    );
    const page = (await t.app.inject({ url: `/v1/admin/audit?target_id=${id}`, headers: admin })).json();
    assert.deepEqual(
      page.entries.map((entry: { action: string }) => entry.action),
      ['webhook.create'],
    );
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

describe('operator audit log: refused inventory changes', () => {
  const t = useApp();

  it('records nothing for a refused inventory change: a taken number, an unknown phone, a phone carrying a cell', async () => {
    const line = await activeLine(t);
    const device = await addDevice(t);
    const before = (await t.app.inject({ url: '/v1/admin/audit?limit=200', headers: admin })).json().entries.length;
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/admin/devices',
        headers: admin,
        payload: { phone_number: device.phoneNumber },
      }),
      409,
      'conflict',
    );
    const unknown = 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1';
    expectProblem(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/admin/devices/${unknown}`,
        headers: admin,
        payload: { label: 'x' },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${unknown}`, headers: admin }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${line.device.id}`, headers: admin }),
      409,
      'conflict',
    );
    const after = (await t.app.inject({ url: '/v1/admin/audit?limit=200', headers: admin })).json().entries.length;
    assert.equal(after, before, 'no entry for any of the four');
    assert.deepEqual(
      (await auditSinceAdded(t, line.device.id)).map((entry) => entry.action),
      [],
    );
  });
});
