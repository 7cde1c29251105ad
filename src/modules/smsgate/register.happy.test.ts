// The SMSGate app signs in (contract §13): with the enrollment's private token or its code it
// becomes a phone of the inventory with one line per SIM card, a device token for every later
// call, its settings (pacing, a signing key of its own) and the six webhooks pointing at Cellgate.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { enroll, mobilePhone, nextNumber, register, twoSims } from '../../../test/support/mobile.ts';
import { redact } from '../../../test/support/smsgate-wire.ts';
import { activeOrganization } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
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
    const line = { cell_id: null, reported_number: null, hint: null };
    assert.deepEqual(device.sims, [
      { slot: 0, sim_number: 1, phone_number: first, carrier: 'T-Mobile', ...line },
      { slot: 1, sim_number: 2, phone_number: second, carrier: 'Mint', ...line },
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

  it("registers with the app's redacted SIM numbers: lines without a number and without a cell, each with a hint", async () => {
    const [first, second] = [nextNumber(), nextNumber()];
    const masked = twoSims(redact(first)!, redact(second)).map((card) => ({
      ...card,
      carrierName: redact(card.carrierName),
      iccid: redact(card.iccid),
    }));
    const enrollment = await enroll(t);
    const response = await register(t, `Code ${enrollment.code}`, masked);
    assert.equal(response.statusCode, 201, response.body);
    const { id } = response.json();
    const device = (await t.app.inject({ url: `/v1/admin/devices/${id}`, headers: admin })).json();
    assert.equal(device.phone_number, null);
    assert.equal(device.cell_id, null);
    assert.deepEqual(
      device.sims.map((s: Record<string, unknown>) => [s.sim_number, s.phone_number, s.cell_id, s.reported_number]),
      [
        [1, null, null, `********${first.slice(-4)}`],
        [2, null, null, `********${second.slice(-4)}`],
      ],
    );
    assert.match(
      device.sims[1].hint,
      new RegExp(`SIM 2: this line carries no cell until its number is set \\(PATCH /v1/admin/devices/${id} `),
    );
    const list = (await t.app.inject({ url: '/v1/admin/devices?limit=100', headers: admin })).json();
    const listed = list.devices.find((d: { id: string }) => d.id === id);
    assert.deepEqual(listed.sims, device.sims, 'the list shows every line as the read does');
    // No SIM card at all (no READ_PHONE_STATE): a phone with no lines, registered all the same.
    const bare = await register(t, `Bearer ${(await enroll(t)).token}`, []);
    assert.equal(bare.statusCode, 201, bare.body);
  });

  it('removing an SMSGate phone removes its lines: their numbers are free for another phone', async () => {
    const number = nextNumber();
    const phone = await mobilePhone(t, twoSims(number, null));
    const removed = await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${phone.id}`, headers: admin });
    assert.equal(removed.statusCode, 204, removed.body);
    const lines = await t.database.db
      .selectFrom('device_sims')
      .select('sim_number')
      .where('device_id', '=', phone.id)
      .execute();
    assert.deepEqual(lines, []);
    const again = await register(t, `Bearer ${(await enroll(t)).token}`, twoSims(number, null));
    assert.equal(again.statusCode, 201, again.body);
  });

  it('a native phone keeps one line, its number, carrying its cell', async () => {
    const native = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/devices',
      headers: admin,
      payload: { phone_number: nextNumber() },
    });
    const view = native.json();
    assert.deepEqual(view.sims, [
      {
        slot: 0,
        sim_number: 1,
        phone_number: view.phone_number,
        carrier: null,
        cell_id: null,
        reported_number: null,
        hint: null,
      },
    ]);
    assert.equal(view.agent, 'simulator');
  });
});

// Cells take the oldest free line: each of these starts on an inventory of its own phones only.
describe('SMSGate SIM lines and their cells', () => {
  const t = useApp();

  it("PATCH /v1/admin/devices/{id} sets SIM lines' numbers: the phone's number, a cell for each line, recorded in the audit log", async () => {
    const phone = await mobilePhone(t, twoSims('********0000', null));
    const [first, second] = [nextNumber(), nextNumber()];
    const patch = (sims: unknown) =>
      t.app.inject({ method: 'PATCH', url: `/v1/admin/devices/${phone.id}`, headers: admin, payload: { sims } });
    const response = await patch([{ sim_number: 2, phone_number: second }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().phone_number, second, 'the first number known is the phone number');
    assert.deepEqual(
      response.json().sims.map((s: { phone_number: string | null }) => s.phone_number),
      [null, second],
    );
    // The same number again changes nothing; SIM 1 in national form is stored in E.164.
    const both = await patch([
      { sim_number: 2, phone_number: second },
      { sim_number: 1, phone_number: first.replace('+1415', '+1 (415) ') },
    ]);
    assert.equal(both.statusCode, 200, both.body);
    assert.deepEqual(
      both.json().sims.map((s: { phone_number: string | null; hint: string | null }) => [s.phone_number, s.hint]),
      [
        [first, null],
        [second, null],
      ],
    );
    const org = await activeOrganization(t);
    const cells = [await createCell(t, org.headers, 'one'), await createCell(t, org.headers, 'two')];
    assert.deepEqual(
      cells.map((c) => c.phone_number),
      [first, second],
    );
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: { cell_id: string }) => s.cell_id),
      cells.map((c) => c.id),
    );
    assert.equal(device.cell_id, cells[0].id);
    const audit = (await t.app.inject({ url: `/v1/admin/audit?target_id=${phone.id}`, headers: admin })).json();
    const updates = audit.entries.filter((e: { action: string }) => e.action === 'device.update');
    assert.equal(updates.length, 2);
    assert.deepEqual(updates[0].detail.sims, [
      { sim_number: 2, phone_number: second },
      { sim_number: 1, phone_number: first },
    ]);
  });

  it('the app PATCHing a full number fills a line without one (a waiting cell takes it); a number already carried is only a hint', async () => {
    const [mine, taken] = [nextNumber(), nextNumber()];
    await mobilePhone(t, twoSims(taken, null));
    const org = await activeOrganization(t);
    assert.equal((await createCell(t, org.headers, 'on the other phone')).phone_number, taken);
    const phone = await mobilePhone(t, twoSims('********0201', '********0202'));
    const waiting = await createCell(t, org.headers, 'waiting');
    assert.equal(waiting.status, 'provisioning');
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/device',
      headers: phone.headers,
      payload: { id: phone.id, simCards: twoSims(mine, taken) },
    });
    assert.equal(patched.statusCode, 204, patched.body);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: Record<string, unknown>) => [s.phone_number, s.cell_id, s.reported_number]),
      [
        [mine, waiting.id, null],
        [null, null, taken],
      ],
    );
    assert.equal(device.phone_number, mine);
    // Two SIM cards reporting one number: the first line takes it.
    const twin = await mobilePhone(t, twoSims('********0204', '********0205'));
    const same = nextNumber();
    const twice = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/device',
      headers: twin.headers,
      payload: { id: twin.id, simCards: twoSims(same, same) },
    });
    assert.equal(twice.statusCode, 204, twice.body);
    const lines = (await t.app.inject({ url: `/v1/admin/devices/${twin.id}`, headers: admin })).json().sims;
    assert.deepEqual(
      lines.map((s: Record<string, unknown>) => [s.phone_number, s.reported_number]),
      [
        [same, null],
        [null, same],
      ],
    );
  });

  it('the app PATCHing its redacted SIM cards keeps the numbers and cells the lines carry, and a line left out while it carries a cell', async () => {
    const [first, second] = [nextNumber(), nextNumber()];
    const phone = await mobilePhone(t, twoSims(first, second));
    const org = await activeOrganization(t);
    // Cells take free lines oldest first: an earlier test's free line goes before this one's.
    let cell = await createCell(t, org.headers, 'kept');
    while (cell.phone_number !== first) {
      assert.equal(cell.status, 'active', 'a free line took the cell');
      cell = await createCell(t, org.headers, 'kept');
    }
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/device',
      headers: phone.headers,
      payload: { id: phone.id, simCards: twoSims(redact(first)!, redact(second)).slice(1) },
    });
    assert.equal(patched.statusCode, 204, patched.body);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: Record<string, unknown>) => [s.sim_number, s.phone_number, s.cell_id]),
      [
        [1, first, cell.id],
        [2, second, null],
      ],
    );
    assert.equal(device.sims[1].reported_number, `********${second.slice(-4)}`);
  });
});
