// Bad input on pause / resume / release: a missing, empty, blank or too long reason, unknown
// fields, an unknown device, a state that does not allow the action (409), other credentials.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, startApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { addDevice, auditSinceAdded, type TestDevice } from '../../../test/support/devices.ts';

const act = (t: TestApp, device: TestDevice | string, action: string, payload?: unknown, headers = admin) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/admin/devices/${typeof device === 'string' ? device : device.id}/${action}`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

describe('device pause, resume and release: bad input', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  for (const action of ['pause', 'resume', 'release']) {
    for (const [label, payload] of [
      ['no body', undefined],
      ['no reason', {}],
      ['an empty reason', { reason: '' }],
      ['a blank reason', { reason: '  \n ' }],
      ['a reason over 500 characters', { reason: 'x'.repeat(501) }],
      ['a reason that is not a string', { reason: 7 }],
      ['an unknown field', { reason: 'ok', until: 'tomorrow' }],
    ] as const) {
      it(`${action} with ${label} is 400 and changes nothing`, async () => {
        const device = await addDevice(t);
        const problem = expectProblem(await act(t, device, action, payload), 400, 'invalid_request');
        if (payload !== undefined) assert.ok(problem.errors.length > 0, JSON.stringify(problem));
        const view = (await t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
        assert.deepEqual([view.paused, view.health], [false, 'healthy']);
        assert.deepEqual(await auditSinceAdded(t, device.id), []);
      });
    }

    it(`${action} of an unknown device is 404`, async () => {
      expectProblem(await act(t, 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1', action, { reason: 'x' }), 404, 'not_found');
    });

    it(`${action} with an agent key is 403, without a credential 401`, async () => {
      const device = await addDevice(t);
      const org = await verifiedOrganization(t);
      expectProblem(await act(t, device, action, { reason: 'x' }, org.headers), 403, 'forbidden');
      expectProblem(await act(t, device, action, { reason: 'x' }, {} as typeof admin), 401, 'unauthenticated');
    });
  }

  it('pausing a paused phone, resuming a running one and releasing a healthy one are 409 conflict', async () => {
    const device = await addDevice(t);
    expectProblem(await act(t, device, 'resume', { reason: 'x' }), 409, 'conflict');
    expectProblem(await act(t, device, 'release', { reason: 'x' }), 409, 'conflict');
    assert.equal((await act(t, device, 'pause', { reason: 'first' })).statusCode, 200);
    expectProblem(await act(t, device, 'pause', { reason: 'second' }), 409, 'conflict');
    assert.deepEqual(
      (await auditSinceAdded(t, device.id)).map((entry) => entry.reason),
      ['first'],
    );
  });

  for (const [label, value] of [
    ['0', 0],
    ['10001', 10_001],
    ['2.5', 2.5],
    ['a string', '300'],
  ] as const) {
    it(`a daily_send_limit of ${label} is 400 on add and on PATCH`, async () => {
      expectProblem(
        await t.app.inject({
          method: 'POST',
          url: '/v1/admin/devices',
          headers: admin,
          payload: { phone_number: '+14155550177', daily_send_limit: value },
        }),
        400,
        'invalid_request',
      );
      const device = await addDevice(t);
      expectProblem(
        await t.app.inject({
          method: 'PATCH',
          url: `/v1/admin/devices/${device.id}`,
          headers: admin,
          payload: { daily_send_limit: value },
        }),
        400,
        'invalid_request',
      );
    });
  }

  it('a send rate above 30 segments per minute is 400', async () => {
    const problem = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/admin/devices',
        headers: admin,
        payload: { phone_number: '+14155550178', send_rate_per_minute: 31 },
      }),
      400,
      'invalid_request',
    );
    assert.equal(problem.errors[0].field, 'send_rate_per_minute');
  });
});
