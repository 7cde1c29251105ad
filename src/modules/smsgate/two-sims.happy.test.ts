// Two SIMs, two cells (contract §13): each SIM line with a number carries its own cell; the phone
// claims the queued sends of both, each with the simNumber of its own cell's line, and a text
// received on SIM 2 lands on the second cell.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { createCell } from '../../../test/support/cells.ts';
import { mobilePhone, nextNumber, twoSims, webhook } from '../../../test/support/mobile.ts';

describe('SMSGate: two SIMs, two cells', () => {
  const t = useApp();

  it('register with two SIM cards: two cells, a send from each claimed with its own simNumber, inbound on SIM 2 on cell 2', async () => {
    const [first, second] = [nextNumber(), nextNumber()];
    const phone = await mobilePhone(t, twoSims(first, second));
    const org = await activeOrganization(t);
    const cellOne = await createCell(t, org.headers, 'SIM 1');
    const cellTwo = await createCell(t, org.headers, 'SIM 2');
    assert.deepEqual(
      [cellOne.status, cellOne.phone_number, cellTwo.status, cellTwo.phone_number],
      ['active', first, 'active', second],
    );
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.equal(device.cell_id, cellOne.id);
    // The second line's cell reads its phone as the first does: presence, capabilities, health.
    const view = async (cell: { id: string }) =>
      (await t.app.inject({ url: `/v1/cells/${cell.id}`, headers: org.headers })).json() as Record<string, unknown>;
    const phoneOf = (cell: Record<string, unknown>) => [cell.online, cell.last_seen_at, cell.capabilities, cell.health];
    assert.deepEqual(phoneOf(await view(cellTwo)), phoneOf(await view(cellOne)));
    assert.deepEqual((await view(cellTwo)).capabilities, {
      delivery_reports: true,
      mms_send: false,
      mms_receive: true,
    });

    const send = async (cell: { id: string }, body: string): Promise<{ id: string }> =>
      queued(t, { org, cell }, { to: '+14155550199', body });
    const one = await send(cellOne, 'from SIM 1');
    const two = await send(cellTwo, 'from SIM 2');
    const claimed = await t.app.inject({ url: '/mobile/v1/message?order=fifo', headers: phone.headers });
    assert.equal(claimed.statusCode, 200, claimed.body);
    const lines = (claimed.json() as Array<{ id: string; simNumber: number; message: string }>)
      .map((message) => [message.id, message.simNumber, message.message])
      .sort();
    assert.deepEqual(
      lines,
      [
        [one.id, 1, 'from SIM 1'],
        [two.id, 2, 'from SIM 2'],
      ].sort(),
    );

    const received = await webhook(t, phone, 'sms:received', {
      messageId: 'in-2',
      message: 'Reply to SIM 2',
      sender: '+14155550123',
      recipient: second,
      simNumber: 2,
      phoneNumber: '+14155550123',
      receivedAt: '2026-01-01T00:00:05.000+00:00',
    });
    assert.equal(received.statusCode, 204, received.body);
    const inboundOf = async (cell: { id: string }) =>
      (await t.app.inject({ url: `/v1/cells/${cell.id}/messages?direction=inbound`, headers: org.headers })).json()
        .messages as Array<{ body: string; to: string }>;
    assert.deepEqual(
      (await inboundOf(cellTwo)).map((message) => [message.body, message.to]),
      [['Reply to SIM 2', second]],
      'addressed to the number of SIM 2, not the phone number',
    );
    assert.deepEqual(await inboundOf(cellOne), []);
  });

  it('order=lifo hands out the newest first across both lines; fifo the oldest first', async () => {
    const phone = await mobilePhone(t, twoSims(nextNumber(), nextNumber()));
    const org = await activeOrganization(t);
    const cells = [await createCell(t, org.headers, 'SIM 1'), await createCell(t, org.headers, 'SIM 2')];
    const send = async (cell: { id: string }, body: string) => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/cells/${cell.id}/messages/send`,
        headers: org.headers,
        payload: { to: '+14155550199', body },
      });
      assert.equal(response.statusCode, 202, response.body);
    };
    const pull = async (order: string) => {
      const response = await t.app.inject({ url: `/mobile/v1/message?order=${order}`, headers: phone.headers });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as Array<{ simNumber: number; message: string }>).map((m) => [m.simNumber, m.message]);
    };
    for (const [i, body] of ['a', 'b', 'c', 'd'].entries()) await send(cells[i % 2], body);
    assert.deepEqual(await pull('lifo'), [
      [2, 'd'],
      [1, 'c'],
      [2, 'b'],
      [1, 'a'],
    ]);
    for (const [i, body] of ['e', 'f', 'g'].entries()) await send(cells[(i + 1) % 2], body);
    assert.deepEqual(await pull('fifo'), [
      [2, 'e'],
      [1, 'f'],
      [2, 'g'],
    ]);
  });

  it('a SIM line the operator gives a number takes the cell waiting for a phone', async () => {
    const phone = await mobilePhone(t, twoSims(nextNumber(), null));
    const org = await activeOrganization(t);
    const active = await createCell(t, org.headers, 'SIM 1');
    const waiting = await createCell(t, org.headers, 'SIM 2');
    assert.deepEqual([active.status, waiting.status], ['active', 'provisioning']);
    const number = nextNumber();
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${phone.id}`,
      headers: admin,
      payload: { sims: [{ sim_number: 2, phone_number: number }] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const cell = (await t.app.inject({ url: `/v1/cells/${waiting.id}`, headers: org.headers })).json();
    assert.deepEqual([cell.status, cell.phone_number], ['active', number]);
  });
});
