// Enrollment of SMSGate phones by the operator (contract §13): a private token and a code shown
// once (hashed at rest), the server URL, 24 hours for the token and 10 minutes for the code;
// pending ones listed without their secrets; a revoked one is gone; creation and revocation are
// recorded in the operator audit log.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { sha256Hex } from '../../lib/secrets.ts';

describe('device enrollments (admin)', () => {
  const t = useApp();

  const enroll = (payload?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/admin/devices/enrollments', headers: admin, payload });

  it('creates an enrollment with a token, a code and the server URL, shown once and stored as hashes', async () => {
    const response = await enroll({ label: 'Rack B, slot 1', send_rate_per_minute: 12 });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.match(body.id, /^enr_/);
    assert.match(body.token, /^cg_enr_[0-9A-Za-z]{32}$/);
    assert.match(body.code, /^[0-9]{6}$/);
    assert.equal(body.server_url, 'http://cellgate.test/mobile/v1');
    const now = t.clock.now().getTime();
    assert.equal(body.expires_at, new Date(now + 24 * 3600_000).toISOString());
    assert.equal(body.code_expires_at, new Date(now + 10 * 60_000).toISOString());
    assert.deepEqual([body.label, body.send_rate_per_minute, body.daily_send_limit], ['Rack B, slot 1', 12, null]);

    const row = await t.database.db
      .selectFrom('device_enrollments')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256Hex(body.token));
    assert.equal(row.code_hash, sha256Hex(body.code));
    assert.ok(!JSON.stringify(row).includes(body.token));

    const list = await t.app.inject({ url: '/v1/admin/devices/enrollments', headers: admin });
    assert.equal(list.statusCode, 200);
    const listed = list.json().enrollments.find((e: { id: string }) => e.id === body.id);
    assert.deepEqual(Object.keys(listed).sort(), [
      'code_expires_at',
      'created_at',
      'daily_send_limit',
      'expires_at',
      'id',
      'label',
      'send_rate_per_minute',
    ]);
  });

  it('takes no body at all: every field has a default', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/admin/devices/enrollments', headers: admin });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().label, null);
  });

  it('revokes a pending enrollment: it leaves the list, and a second revoke is 404', async () => {
    const { id } = (await enroll()).json();
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/v1/admin/devices/enrollments/${id}`,
      headers: admin,
    });
    assert.equal(revoked.statusCode, 204);
    const list = (await t.app.inject({ url: '/v1/admin/devices/enrollments', headers: admin })).json();
    assert.ok(!list.enrollments.some((e: { id: string }) => e.id === id));
    const again = await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/enrollments/${id}`, headers: admin });
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().code, 'not_found');
  });

  it('records the creation and the revocation in the operator audit log, with the admin token', async () => {
    const { id } = (await enroll({ label: 'Rack C', daily_send_limit: 500 })).json();
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/v1/admin/devices/enrollments/${id}`,
      headers: admin,
    });
    assert.equal(revoked.statusCode, 204);
    const audit = (await t.app.inject({ url: `/v1/admin/audit?target_id=${id}`, headers: admin })).json();
    assert.deepEqual(
      audit.entries.map((e: { action: string; target: unknown; actor: { admin_token_id: string } }) => [
        e.action,
        e.target,
        e.actor.admin_token_id,
      ]),
      [
        ['enrollment.revoke', { type: 'enrollment', id }, 'adm_bootstrap'],
        ['enrollment.create', { type: 'enrollment', id }, 'adm_bootstrap'],
      ],
    );
    assert.deepEqual(audit.entries[1].detail, { label: 'Rack C', send_rate_per_minute: null, daily_send_limit: 500 });
    assert.equal(JSON.stringify(audit).includes('cg_enr_'), false, 'the token is not in the log');
    // A refused revoke records nothing.
    await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/enrollments/${id}`, headers: admin });
    const after = (await t.app.inject({ url: `/v1/admin/audit?target_id=${id}`, headers: admin })).json();
    assert.equal(after.entries.length, 2);
  });

  it('lists only pending enrollments: an expired one is left out', async () => {
    const { id } = (await enroll()).json();
    t.clock.advance(24 * 3600_000 + 1);
    const list = (await t.app.inject({ url: '/v1/admin/devices/enrollments', headers: admin })).json();
    assert.ok(!list.enrollments.some((e: { id: string }) => e.id === id));
  });

  it('needs an admin token, and refuses fields it does not know', async () => {
    const anonymous = await t.app.inject({ method: 'POST', url: '/v1/admin/devices/enrollments', payload: {} });
    assert.equal(anonymous.statusCode, 401);
    const list = await t.app.inject({ url: '/v1/admin/devices/enrollments' });
    assert.equal(list.statusCode, 401);
    const unknown = await enroll({ phone: '+14155550123' });
    assert.equal(unknown.statusCode, 400);
    const tooFast = await enroll({ send_rate_per_minute: 31 });
    assert.equal(tooFast.statusCode, 400);
  });
});
