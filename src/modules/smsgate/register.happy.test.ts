// The SMSGate app signs in (contract §13): with the enrollment's private token or its code it
// becomes a phone of the inventory with one line per SIM card, a device token for every later
// call, its settings (pacing, a signing key of its own) and the six webhooks pointing at Cellgate.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { enroll, mobilePhone, nextNumber, register, twoSims } from '../../../test/support/mobile.ts';
import { sha256Hex } from '../../lib/secrets.ts';

describe('SMSGate registration', () => {
  const t = useApp();

  it('registers with the private token: a phone with two lines, the SMSGate capabilities, and a hashed token', async () => {
    const enrollment = await enroll(t, { label: 'Rack B, slot 1', send_rate_per_minute: 12 });
    const [first, second] = [nextNumber(), nextNumber()];
    const response = await register(t, `Bearer ${enrollment.token}`, twoSims(first, second));
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['id', 'login', 'password', 'token']);
    assert.match(body.id, /^dev_/);
    assert.equal(body.password, null);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${body.id}`, headers: admin })).json();
    assert.equal(device.agent, 'smsgate');
    assert.equal(device.label, 'Rack B, slot 1');
    assert.equal(device.send_rate_per_minute, 12);
    assert.equal(device.phone_number, first);
    assert.deepEqual(device.sims, [
      { slot: 0, sim_number: 1, phone_number: first, carrier: 'T-Mobile' },
      { slot: 1, sim_number: 2, phone_number: second, carrier: 'Mint' },
    ]);
    assert.deepEqual(device.capabilities, { delivery_reports: true, mms_send: false, mms_receive: true });
    const row = await t.database.db
      .selectFrom('devices')
      .select(['key_hash'])
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash, sha256Hex(body.token));
  });

  it('registers with the code', async () => {
    const enrollment = await enroll(t);
    const response = await register(t, `Code ${enrollment.code}`);
    assert.equal(response.statusCode, 201, response.body);
  });

  it('answers the device, its settings and its webhooks to its token', async () => {
    const phone = await mobilePhone(t);
    const info = (await t.app.inject({ url: '/mobile/v1/device', headers: phone.headers })).json();
    assert.equal(info.device.id, phone.id);
    assert.equal(typeof info.externalIp, 'string');
    assert.equal(info.device.simCards.length, 2);
    const anonymous = (await t.app.inject({ url: '/mobile/v1/device' })).json();
    assert.equal(anonymous.device, null);

    const settings = (await t.app.inject({ url: '/mobile/v1/settings', headers: phone.headers })).json();
    assert.deepEqual(settings.messages, { limit_period: 'PerMinute', limit_value: 20, processing_order: 'FIFO' });
    assert.deepEqual(settings.ping, { interval_seconds: 60 });
    assert.match(settings.webhooks.signing_key, /^[0-9A-Za-z]{32}$/);
    const other = await mobilePhone(t);
    assert.notEqual(other.signingKey, phone.signingKey);

    const hooks = (await t.app.inject({ url: '/mobile/v1/webhooks', headers: phone.headers })).json();
    assert.deepEqual(
      hooks.map((h: { event: string }) => h.event),
      ['sms:received', 'sms:sent', 'sms:delivered', 'sms:failed', 'mms:received', 'system:ping'],
    );
    for (const hook of hooks) assert.equal(hook.url, 'http://cellgate.test/mobile/v1/webhooks/events');
  });

  it('PATCH /device keeps the push token and the SIM cards; an operator-set number survives a SIM list without it', async () => {
    const phone = await mobilePhone(t, twoSims(nextNumber(), null));
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/device',
      headers: phone.headers,
      payload: { id: phone.id, pushToken: null, simCards: twoSims(nextNumber(), null).slice(1) },
    });
    assert.equal(patched.statusCode, 204, patched.body);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: { sim_number: number }) => s.sim_number),
      [2],
    );
  });

  it("PATCH /v1/admin/devices/{id} sets a SIM line's number where Android reported none", async () => {
    const phone = await mobilePhone(t, twoSims(nextNumber(), null));
    const number = nextNumber();
    const patch = (sims: unknown) =>
      t.app.inject({ method: 'PATCH', url: `/v1/admin/devices/${phone.id}`, headers: admin, payload: { sims } });
    const response = await patch([{ sim_number: 2, phone_number: number }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().sims[1].phone_number, number);
    const unknown = await patch([{ sim_number: 3, phone_number: nextNumber() }]);
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().errors[0].field, 'sims.sim_number');
    const other = await mobilePhone(t);
    const otherNumber = (await t.app.inject({ url: `/v1/admin/devices/${other.id}`, headers: admin })).json()
      .phone_number;
    const duplicate = await patch([{ sim_number: 2, phone_number: otherNumber }]);
    assert.equal(duplicate.statusCode, 409);
    // A native phone keeps one line, its number.
    const native = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: nextNumber() },
    });
    const view = native.json();
    assert.deepEqual(view.sims, [{ slot: 0, sim_number: 1, phone_number: view.phone_number, carrier: null }]);
    assert.equal(view.agent, 'simulator');
  });
});
