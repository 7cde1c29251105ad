// A sign-in the app cannot make (contract §13): spent, expired, revoked or unknown enrollments and
// codes are 401 and add nothing; a SIM number another phone or line carries is 409; a token of another phone sees nothing of this one's; bad bodies
// are 400, oversized ones 413.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { enroll, mobilePhone, nextNumber, register, twoSims } from '../../../test/support/mobile.ts';

describe('SMSGate registration refused', () => {
  const t = useApp();

  const deviceCount = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('devices')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a spent enrollment is 401: its token and its code work once', async () => {
    const enrollment = await enroll(t);
    assert.equal((await register(t, `Bearer ${enrollment.token}`)).statusCode, 201);
    const before = await deviceCount();
    for (const authorization of [`Bearer ${enrollment.token}`, `Code ${enrollment.code}`]) {
      const again = await register(t, authorization);
      assert.equal(again.statusCode, 401, again.body);
      assert.equal(again.json().code, 'unauthenticated');
    }
    assert.equal(await deviceCount(), before);
  });

  it('an expired token (24 h) and an expired code (10 min) are 401', async () => {
    const enrollment = await enroll(t);
    t.clock.advance(10 * 60_000 + 1);
    assert.equal((await register(t, `Code ${enrollment.code}`)).statusCode, 401);
    t.clock.advance(24 * 3600_000);
    assert.equal((await register(t, `Bearer ${enrollment.token}`)).statusCode, 401);
  });

  it('a revoked enrollment, an unknown token or code, or no credential is 401', async () => {
    const enrollment = await enroll(t);
    await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/enrollments/${enrollment.id}`, headers: admin });
    const before = await deviceCount();
    for (const authorization of [
      `Bearer ${enrollment.token}`,
      'Bearer cg_enr_00000000000000000000000000000000',
      'Bearer cg_live_00000000000000000000000000000000',
      'Code 12345',
      'Code 000000x',
      'Basic dXNlcjpwYXNz',
    ]) {
      const response = await register(t, authorization);
      assert.equal(response.statusCode, 401, `${authorization}: ${response.body}`);
    }
    const none = await t.app.inject({ method: 'POST', url: '/mobile/v1/device', payload: { name: 'x', simCards: [] } });
    assert.equal(none.statusCode, 401);
    assert.equal(await deviceCount(), before);
  });

  it('a full SIM number another phone or line carries, or two cards with one number, is 409 and leaves the enrollment unspent', async () => {
    const taken = nextNumber();
    await mobilePhone(t, twoSims(nextNumber(), taken));
    const native = nextNumber();
    const added = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: native },
    });
    assert.equal(added.statusCode, 201, added.body);
    const enrollment = await enroll(t);
    const before = await deviceCount();
    for (const [cards, field] of [
      [twoSims(taken, null), 'simCards.0.phoneNumber'],
      [twoSims(nextNumber(), native), 'simCards.1.phoneNumber'],
      [twoSims(taken.replace('+1', '+1 '), null), 'simCards.0.phoneNumber'],
    ] as const) {
      const response = await register(t, `Bearer ${enrollment.token}`, cards);
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().code, 'conflict');
      assert.deepEqual(
        response.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [[field, 'phone_number_taken']],
      );
    }
    const same = nextNumber();
    const twice = await register(t, `Bearer ${enrollment.token}`, twoSims(same, same));
    assert.equal(twice.statusCode, 409, twice.body);
    assert.equal(twice.json().errors[0].code, 'phone_number_taken');
    assert.equal(await deviceCount(), before, 'no phone was added');
    assert.equal((await register(t, `Bearer ${enrollment.token}`)).statusCode, 201, 'the enrollment is unspent');
  });

  it('a bad body is 400, an oversized one 413', async () => {
    const enrollment = await enroll(t);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/mobile/v1/device',
      headers: { authorization: `Bearer ${enrollment.token}` },
      payload: { name: 'x', simCards: [{ slotIndex: 'one' }] },
    });
    assert.equal(bad.statusCode, 400);
    const big = await t.app.inject({
      method: 'POST',
      url: '/mobile/v1/device',
      headers: { authorization: `Bearer ${enrollment.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(70_000), simCards: [] }),
    });
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().detail, 'The request body exceeds 64 KiB.', 'the limit of this route, not the default');
  });

  it('every later call needs a valid device token, and a rotated or unknown one is 401', async () => {
    const phone = await mobilePhone(t);
    for (const url of ['/mobile/v1/message', '/mobile/v1/settings', '/mobile/v1/webhooks']) {
      assert.equal((await t.app.inject({ url })).statusCode, 401, url);
      const wrong = await t.app.inject({
        url,
        headers: { authorization: 'Bearer cg_dev_00000000000000000000000000000000' },
      });
      assert.equal(wrong.statusCode, 401, url);
    }
    const device = await t.app.inject({ url: '/mobile/v1/device', headers: { authorization: 'Bearer nope' } });
    assert.equal(device.statusCode, 401);
    await t.app.inject({ method: 'POST', url: `/v1/admin/devices/${phone.id}/rotate-key`, headers: admin });
    assert.equal((await t.app.inject({ url: '/mobile/v1/settings', headers: phone.headers })).statusCode, 401);
  });
});
