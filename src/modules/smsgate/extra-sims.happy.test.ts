// A phone with more than two active SIM cards (a third card, or an eSIM beside two): the app lists
// every active subscription (helpers/SubscriptionsHelper.kt getActiveSimCards), in any order.
// Cellgate signs it in and keeps a line for the first two by SIM number (contract §13: one or two
// lines a phone; docs/decisions.md), warns the operator in the log which SIM got none, and a text
// received on that SIM is 400 unknown_sim, saying why.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../test/harness.ts';
import { enroll, mobilePhone, nextNumber, register, webhook } from '../../../test/support/mobile.ts';

const card = (simNumber: number, phoneNumber: string | null) => ({
  slotIndex: simNumber - 1,
  simNumber,
  phoneNumber,
  carrierName: `Carrier ${simNumber}`,
  iccid: `89012600000000000${simNumber}`,
});

describe('SMSGate phones with more than two SIM cards', () => {
  const t = useApp();

  const simsOf = async (id: string) =>
    (
      (await t.app.inject({ url: `/v1/admin/devices/${id}`, headers: admin })).json().sims as {
        sim_number: number;
        phone_number: string | null;
      }[]
    ).map((sim) => [sim.sim_number, sim.phone_number]);

  it('signs in with three cards: lines for SIMs 1 and 2, a warning naming SIM 3', async () => {
    const warn = mock.method(t.app.log, 'warn');
    const [first, second, third] = [nextNumber(), nextNumber(), nextNumber()];
    const enrollment = await enroll(t);
    const response = await register(t, `Bearer ${enrollment.token}`, [card(3, third), card(1, first), card(2, second)]);
    assert.equal(response.statusCode, 201, response.body);
    const { id } = response.json();
    assert.deepEqual(await simsOf(id), [
      [1, first],
      [2, second],
    ]);
    const warned = warn.mock.calls
      .map((call) => call.arguments as unknown[])
      .find((args) => args[0] && typeof args[1] === 'string' && /SIM cards/.test(args[1]));
    assert.ok(warned, 'the operator is told in the log');
    assert.deepEqual(warned[0], { device_id: id, ignored_sim_numbers: [3] });
    assert.match(String(warned[1]), /serves the first 2, SIM 3 carries no line/);
    warn.mock.restore();
    // The third number is free: no line took it.
    const other = await register(t, `Bearer ${(await enroll(t)).token}`, [card(1, third)]);
    assert.equal(other.statusCode, 201, other.body);
  });

  it('PATCH /device with four cards keeps the first two lines; a text on SIM 3 is 400 unknown_sim saying why', async () => {
    const phone = await mobilePhone(t, [card(1, nextNumber()), card(2, null)]);
    const before = await simsOf(phone.id);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/mobile/v1/device',
      headers: phone.headers,
      payload: {
        id: phone.id,
        pushToken: null,
        simCards: [card(4, null), card(3, null), card(2, null), card(1, null)],
      },
    });
    assert.equal(patched.statusCode, 204, patched.body);
    assert.deepEqual(await simsOf(phone.id), before);
    const received = await webhook(t, phone, 'sms:received', {
      messageId: 'a1',
      message: 'hi',
      sender: '+14155550123',
      simNumber: 3,
      receivedAt: '2026-01-01T00:00:05.000Z',
    });
    assert.equal(received.statusCode, 400, received.body);
    assert.deepEqual(
      received.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
      [['payload.simNumber', 'unknown_sim']],
    );
    assert.match(received.json().errors[0].message, /first 2 SIM cards/);
  });

  it('more than eight cards (Android numbers slots 0 to 7) is 400 and signs nothing in', async () => {
    const enrollment = await enroll(t);
    const cards = Array.from({ length: 9 }, (_, i) => ({ ...card(1, null), slotIndex: i % 8, simNumber: (i % 8) + 1 }));
    const response = await register(t, `Bearer ${enrollment.token}`, cards);
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().errors[0].field, 'simCards');
    assert.equal((await register(t, `Bearer ${enrollment.token}`)).statusCode, 201, 'the enrollment is unspent');
  });
});
