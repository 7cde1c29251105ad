import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, expectProblem, signUp, type TestApp, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { activeLine, claim, queued, report } from '../../../test/support/messages.ts';

const statusOf = async (t: TestApp, headers: Record<string, string>) => {
  const response = await t.app.inject({ url: '/v1/agent/status', headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
};
const check = (body: { checks: { name: string; status: string }[] }, name: string) =>
  body.checks.find((c) => c.name === name)?.status;

describe('GET /v1/agent/status', () => {
  const t = useApp({ env: { CELLGATE_RATE_LIMIT: '50', CELLGATE_RATE_LIMIT_BURST: '100' } });

  it('answers an unverified organization and tells it to verify', async () => {
    const org = await signUp(t);
    const body = await statusOf(t, bearer(org.apiKey));
    assert.deepEqual(body.organization, { id: org.organizationId, name: org.email, status: 'unverified' });
    assert.equal(check(body, 'organization'), 'fail');
    assert.equal(check(body, 'cells'), 'warn');
    assert.deepEqual(body.cells, { total: 0, active: 0, online: 0, offline: 0, provisioning: 0 });
    assert.deepEqual(body.rate_limit, { requests_per_second: 50, burst: 100 });
    assert.deepEqual(body.billing, { state: 'inactive', tier: null, prepaid_balance_usd: 0, amount_due_usd: 0 });
    assert.equal(check(body, 'billing'), 'warn', 'no paid tier yet: pay the setup');
  });

  it('counts a failure by when the message failed, not when it was created', async () => {
    const line = await activeLine(t);
    await queued(t, line, { to: '+14155550125', body: 'never claimed' });
    t.clock.advance(2 * 24 * 60 * 60 * 1000); // long past the 1 h queue expiry
    await t.services.messageLeases.tick();
    assert.deepEqual((await statusOf(t, line.org.headers)).messages, { queued: 0, sending: 0, failed_24h: 1 });
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    assert.equal((await statusOf(t, line.org.headers)).messages.failed_24h, 0);
  });

  it('counts cells, open and failed messages, and flags offline cells', async () => {
    const line = await activeLine(t);
    await createCell(t, line.org.headers, 'waiting line'); // no free device: provisioning
    await queued(t, line, { to: '+14155550123', body: 'one' });
    await queued(t, line, { to: '+14155550124', body: 'two' });
    const [first] = await claim(t, line, '?limit=1');
    let body = await statusOf(t, line.org.headers);
    assert.deepEqual(body.cells, { total: 2, active: 1, online: 1, offline: 0, provisioning: 1 });
    assert.deepEqual(body.messages, { queued: 1, sending: 1, failed_24h: 0 });
    assert.equal(check(body, 'organization'), 'ok');
    assert.equal(check(body, 'cells'), 'warn');
    assert.deepEqual([body.billing.state, body.billing.tier, check(body, 'billing')], ['active', 'pro', 'ok']);

    assert.equal(
      (await report(t, line, first.id, { event: 'failed', error_code: 'carrier_rejected' })).statusCode,
      200,
    );
    t.clock.advance(121_000);
    await t.services.devices.markSilentOffline();
    body = await statusOf(t, line.org.headers);
    assert.deepEqual(body.messages, { queued: 1, sending: 0, failed_24h: 1 });
    assert.equal(body.cells.offline, 1);
    assert.equal(check(body, 'cells'), 'fail');
    assert.equal(check(body, 'messages'), 'warn');

    t.clock.advance(24 * 60 * 60 * 1000);
    assert.equal((await statusOf(t, line.org.headers)).messages.failed_24h, 0);
  });

  it('is 401 without a key', async () => {
    expectProblem(await t.app.inject({ url: '/v1/agent/status' }), 401, 'unauthenticated');
  });
});

describe('GET /v1/agent/status: why cells are offline', () => {
  const t = useApp();

  it('says a phone that never called in has never called in, and counts in words ("1 active cell")', async () => {
    const line = await activeLine(t);
    const detail = async () =>
      (await statusOf(t, line.org.headers)).checks.find((c: { name: string }) => c.name === 'cells').detail;
    assert.equal(
      await detail(),
      '1 of 1 active cell is offline: its phone has never called in (start the phone app on it).',
    );
    const heartbeat = await t.app.inject({
      method: 'POST',
      url: '/v1/device/heartbeat',
      headers: { 'x-phone-key': line.device.key },
      payload: {},
    });
    assert.equal(heartbeat.statusCode, 200, heartbeat.body);
    assert.equal(await detail(), '1 active cell, online.');
    t.clock.advance(121_000);
    await t.services.devices.markSilentOffline();
    assert.equal(await detail(), '1 of 1 active cell is offline: its phone has not called in for 120 s.');
    // A second line whose phone never called in: both reasons, each counted.
    await activeLine(t, {}, line.org);
    assert.equal(
      await detail(),
      '2 of 2 active cells are offline: 1 phone has never called in (start the phone app on it); 1 phone has not called in for 120 s.',
    );
  });
});
