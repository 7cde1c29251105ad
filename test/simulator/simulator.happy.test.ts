import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listeningWorld, Reports, type World } from './support.ts';

describe('device simulator against a listening service', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('answers its heartbeat with the cell and number it carries', async () => {
    const { cellId, phoneNumber, device } = await world.cell();
    const phone = await world.simulate(device);
    assert.equal(phone.config.device_id, device.id);
    assert.equal(phone.config.cell_id, cellId);
    assert.equal(phone.config.phone_number, phoneNumber);
    assert.equal(phone.stats.heartbeats, 1);
    const read = await world.t.app.inject({ url: `/v1/cells/${cellId}`, headers: world.org.headers });
    assert.equal(read.json().online, true);
  });

  it('claims a sent message, reports sent, then delivered, and the message reads delivered', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    const claimed: string[] = [];
    const phone = await world.simulate(device, { onReport: reports.record, onClaim: (m) => claimed.push(m.id) });
    const id = await world.send(cellId, '+14155550123', 'Hello from the test');
    await reports.until(id, 'delivered');
    assert.deepEqual(claimed, [id]);
    assert.deepEqual(reports.of(id), ['sent', 'delivered']);
    const message = await world.message(cellId, id);
    assert.equal(message.status, 'delivered');
    assert.equal(message.error, null);
    assert.equal(message.sent_at, world.t.clock.now().toISOString());
    assert.equal(message.delivered_at, world.t.clock.now().toISOString());
    assert.equal(phone.stats.delivered, 1);
    assert.equal(phone.stats.errors, 0);
  });

  it('reports sending first when asked to', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    await world.simulate(device, { onReport: reports.record, reportSending: true });
    const id = await world.send(cellId, '+14155550124', 'With a sending report');
    await reports.until(id, 'delivered');
    assert.deepEqual(reports.of(id), ['sending', 'sent', 'delivered']);
    assert.equal((await world.message(cellId, id)).status, 'delivered');
  });

  it('with fail rate 1 every message ends failed with the device error code', async () => {
    const { cellId, device } = await world.cell();
    const reports = new Reports();
    const phone = await world.simulate(device, { onReport: reports.record, failRate: 1 });
    const ids = [await world.send(cellId, '+14155550125', 'one'), await world.send(cellId, '+14155550125', 'two')];
    for (const id of ids) {
      await reports.until(id, 'failed');
      const message = await world.message(cellId, id);
      assert.equal(message.status, 'failed');
      assert.deepEqual(message.error, {
        code: 'delivery_failed',
        message: 'Simulated delivery failure (fail rate 1).',
      });
      assert.equal(message.delivered_at, null);
    }
    assert.equal(phone.stats.failed, 2);
    assert.equal(phone.stats.delivered, 0);
  });

  it('injects an inbound text that lands as a received message on its cell; a repeat upload is the same message', async () => {
    const { cellId, phoneNumber, device } = await world.cell();
    const phone = await world.simulate(device);
    const first = await phone.sendInbound('+14155550126', 'Hi there, agent', { deviceMessageId: 'sms-42' });
    assert.equal(first.status, 201);
    const repeat = await phone.sendInbound('+14155550126', 'Hi there, agent', { deviceMessageId: 'sms-42' });
    assert.equal(repeat.status, 200);
    assert.equal(repeat.message.id, first.message.id);

    const list = await world.t.app.inject({
      url: `/v1/cells/${cellId}/messages?direction=inbound`,
      headers: world.org.headers,
    });
    assert.equal(list.statusCode, 200);
    const messages = list.json().messages;
    assert.equal(messages.length, 1);
    assert.equal(messages[0].id, first.message.id);
    assert.equal(messages[0].status, 'received');
    assert.equal(messages[0].direction, 'inbound');
    assert.equal(messages[0].from, '+14155550126');
    assert.equal(messages[0].to, phoneNumber);
    assert.equal(messages[0].body, 'Hi there, agent');
    assert.equal(phone.stats.inbound, 2);
  });

  it('stops promptly in the middle of a long poll', async () => {
    const { device } = await world.cell();
    const phone = await world.simulate(device, { pollWaitSeconds: 30 });
    await new Promise((done) => setTimeout(done, 50)); // let the poll reach the service
    const started = Date.now();
    await phone.stop();
    assert.ok(Date.now() - started < 2_000, `stop took ${Date.now() - started} ms`);
  });
});
