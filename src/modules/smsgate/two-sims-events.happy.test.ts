// Two SIMs, two cells, one phone (contract §13, issue 34): when the phone comes online, goes
// silent, is paused or states other capabilities, both lines' cells say so (cell.online,
// cell.offline, cell.updated), and the operator's device.* webhooks carry both lines.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from '../../../test/harness.ts';
import { createCell, eventsOf } from '../../../test/support/cells.ts';
import { mobilePhone, nextNumber, twoSims } from '../../../test/support/mobile.ts';
import { presenceWorker } from '../../workers/presence.ts';

describe('SMSGate: a dual-SIM phone’s presence and state reach both cells', () => {
  const t = useApp();

  it('online, offline and paused: an event for each cell, the operator webhooks naming both lines', async () => {
    const numbers = [nextNumber(), nextNumber()];
    const phone = await mobilePhone(t, twoSims(numbers[0], numbers[1]));
    const operator = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: `two-sims-${phone.id}`, url: 'https://ops.example.com/hooks', event_types: ['device.*'] },
    });
    assert.equal(operator.statusCode, 201, operator.body);
    const org = await activeOrganization(t);
    const cells = [await createCell(t, org.headers, 'SIM 1'), await createCell(t, org.headers, 'SIM 2')];
    assert.deepEqual(
      cells.map((cell) => cell.phone_number),
      numbers,
    );
    const ids = cells.map((cell) => cell.id).sort();
    /** The cells named by the events of `type` emitted since `seen` of them were. */
    const cellsOf = async (type: string, seen = 0) =>
      (await eventsOf(t, type))
        .slice(seen)
        .map((event) => {
          assert.equal(event.organization_id, org.organizationId);
          return event.data.id as string;
        })
        .sort();

    // Registered and online before its lines carried cells: silent 120 s, both go offline.
    t.clock.advance(121_000);
    const worker = presenceWorker({ devices: t.services.devices, cells: t.services.cells });
    assert.equal((await worker.tick()).offline, 1);
    assert.deepEqual(await cellsOf('cell.offline'), ids);
    for (const event of await eventsOf(t, 'cell.offline')) assert.equal(event.data.online, false);

    // Any call of the app brings both back.
    assert.equal((await t.app.inject({ url: '/mobile/v1/settings', headers: phone.headers })).statusCode, 200);
    assert.deepEqual(await cellsOf('cell.online'), ids);
    for (const event of await eventsOf(t, 'cell.online')) assert.equal(event.data.online, true);

    const updated = (await eventsOf(t, 'cell.updated')).length;
    const paused = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${phone.id}/pause`,
      headers: admin,
      payload: { reason: 'SIM swap' },
    });
    assert.equal(paused.statusCode, 200, paused.body);
    assert.deepEqual(await cellsOf('cell.updated', updated), ids);
    for (const event of (await eventsOf(t, 'cell.updated')).slice(updated)) assert.equal(event.data.health, 'paused');

    // The operator's webhooks carry the phone with both its lines.
    const deliveries = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['event_type', 'payload'])
      .where('webhook_id', '=', operator.json().id)
      .orderBy('event_id')
      .execute();
    assert.deepEqual(
      deliveries.map((delivery) => delivery.event_type),
      ['device.offline', 'device.online'],
    );
    for (const delivery of deliveries) {
      const { data } = JSON.parse(delivery.payload) as { data: { id: string; sims: { phone_number: string }[] } };
      assert.equal(data.id, phone.id);
      assert.deepEqual(
        data.sims.map((sim) => sim.phone_number),
        numbers,
      );
    }
  });
});
