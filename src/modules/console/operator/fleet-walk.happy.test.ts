// Issue 25, "done when": an operator signs in to the operator console and sees a rack of
// simulated phones; one phone's app stops (the plug is pulled); past the 120 s offline threshold
// the console shows it offline and device.offline arrives, signed, on the operator's webhook.
// (The Prometheus side of the same outage, CellgatePhoneOffline firing, is a promtool case in
// docs/alerts/cellgate.rules.test.yml run by src/modules/metrics/alert-rules.test.ts; the blocked
// SIM that is quarantined while a pod broadcast finishes through the other cells is
// src/modules/devices/quarantine.happy.test.ts.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin } from '../../../../test/harness.ts';
import { listeningWorld, type World } from '../../../../test/simulator/support.ts';
import { getOperatorPage, signInOperator, textOf } from '../../../../test/support/console-operator.ts';
import { startReceiver, type Receiver } from '../../../../test/support/webhook-receiver.ts';
import { verify } from '../../../../test/support/webhooks.ts';

interface DeviceView {
  id: string;
  online: boolean;
  last_seen_at: string | null;
}

/** Polls (real time) until `done` holds of the admin device list. */
async function until(world: World, done: (devices: DeviceView[]) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = (await world.t.app.inject({ url: '/v1/admin/devices?limit=200', headers: admin })).json();
    if (done(list.devices)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(list.devices)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the operator walk: a phone is unplugged', () => {
  let world: World;
  let receiver: Receiver;
  before(async () => {
    world = await listeningWorld();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.stop();
    await world.close();
  });

  it('the console shows the rack, then the phone offline, and device.offline reaches the operator webhook', async () => {
    const { t } = world;
    const hook = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: 'pager', url: receiver.url, event_types: ['device.offline'] },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const { secret } = hook.json();

    // A rack of three simulated phones, each carrying a cell.
    const rack = [
      await world.cell({ label: 'Slot 1' }),
      await world.cell({ label: 'Slot 2' }),
      await world.cell({ label: 'Slot 3' }),
    ];
    const phones = [];
    for (const line of rack) phones.push(await world.simulate(line.device));
    await until(world, (devices) => devices.filter((d) => d.online).length === 3, 'three phones online');

    const operator = await signInOperator(t);
    const fleet = await getOperatorPage(t, '/console/operator/fleet', operator);
    assert.equal(fleet.statusCode, 200);
    assert.match(fleet.body, /3 phones in the rack, 3 online/);

    // Slot 2's app stops, and the clock moves past the offline threshold. The other phones keep
    // calling: wait until each has been seen at the new time before the presence check runs.
    const unplugged = rack[1].device;
    await phones[1].stop();
    t.clock.advance(121_000);
    const now = t.clock.now().toISOString();
    await until(
      world,
      (devices) => devices.filter((d) => d.id !== unplugged.id).every((d) => (d.last_seen_at ?? '') >= now),
      'the two running phones to be seen after the advance',
    );
    assert.equal(await t.services.devices.markSilentOffline(), 1);

    const after = await getOperatorPage(t, '/console/operator/fleet', operator);
    assert.match(after.body, /3 phones in the rack, 2 online/);
    const row = after.body.match(new RegExp(`<tr id="device-${unplugged.id}">[\\s\\S]*?</tr>`))?.[0];
    assert.ok(row, "the unplugged phone's row");
    assert.match(textOf(row), /Offline/);
    assert.match(textOf(row), /Slot 2/);

    await t.services.webhookWorker.deliverDue();
    assert.equal(receiver.requests.length, 1);
    const event = verify(t, secret, receiver.requests[0]) as { type: string; organization_id: null; data: DeviceView };
    assert.equal(event.type, 'device.offline');
    assert.equal(event.organization_id, null);
    assert.equal(event.data.id, unplugged.id);
    assert.equal(event.data.online, false);
  });
});
