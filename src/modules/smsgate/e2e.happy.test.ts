// The whole loop of a dual-SIM phone running the SMSGate app, driven by the app's test double
// (test/support/smsgate-app.ts, written from the app's v1.68.0 source): enroll → register with
// two SIM cards (numbers redacted, as the app sends them) → the operator sets the numbers → two
// cells → a send from each cell (REST) → SSE wake (MessageEnqueued) → claim →
// Processed, Sent, Delivered (and Failed) → a signed sms:received on SIM 2 → system:ping. Runs on
// SQLite and, with CELLGATE_TEST_POSTGRES_URL, on PostgreSQL.
//
// The app asks `lifo` by default (MessagesSettings.kt processingOrder); the settings map sets
// processing_order FIFO, so it asks `fifo`, and an explicit `lifo` gets the newest first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { activeOrganization, admin, startApp, type TestApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { createCell } from '../../../test/support/cells.ts';
import type { EventsConnection } from '../../../test/support/smsgate-sse.ts';
import { SmsGateApp } from '../../../test/support/smsgate-app.ts';
import { appFor, enroll, listening, readyPhone, setSimNumbers, twoSims } from '../../../test/support/smsgate-phone.ts';

type Cell = { id: string; phone_number: string | null; status: string };

describe('a dual-SIM phone running the SMSGate app, end to end', () => {
  let t: TestApp;
  let phone: SmsGateApp;
  let events: EventsConnection;
  let org: Awaited<ReturnType<typeof activeOrganization>>;
  let cells: Cell[];
  /** The cell of SIM 1 and of SIM 2 (slot 0 and 1), by their numbers. */
  const cellOf = (simNumber: number) => {
    const cell = cells.find((c) => c.phone_number === phone.sims[simNumber - 1].phoneNumber);
    assert.ok(cell, `no cell carries SIM ${simNumber}: ${JSON.stringify(cells)}`);
    return cell;
  };

  before(async () => {
    t = await startApp();
    phone = await readyPhone(t);
    org = await activeOrganization(t);
    cells = [await createCell(t, org.headers, 'SIM 1'), await createCell(t, org.headers, 'SIM 2')];
    events = await phone.openEvents({ reconnectDelayMs: () => 50 });
  });
  after(async () => {
    phone?.stop();
    await t?.close();
  });

  const message = async (cell: { id: string }, id: string) => {
    const response = await t.app.inject({ url: `/v1/cells/${cell.id}/messages/${id}`, headers: org.headers });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const send = async (cell: { id: string }, body: string): Promise<{ id: string }> =>
    queued(t, { org, cell }, { to: '+14155550199', body });

  it('registers one line per SIM card, numbered as the app numbers its SIMs', async () => {
    const device = await t.app.inject({ url: `/v1/admin/devices/${phone.registration!.id}`, headers: admin });
    assert.equal(device.statusCode, 200, device.body);
    const view = device.json();
    assert.equal(view.agent, 'smsgate');
    assert.deepEqual(
      view.sims.map((s: { slot: number; sim_number: number; phone_number: string }) => [
        s.slot,
        s.sim_number,
        s.phone_number,
      ]),
      [
        [0, 1, phone.sims[0].phoneNumber],
        [1, 2, phone.sims[1].phoneNumber],
      ],
    );
    assert.equal(cellOf(1).status, 'active');
    assert.equal(events.connects, 1, `the SSE stream opened: ${events.failures.join(', ')}`);
  });

  it('gives the SIM 2 line a cell of its own', () => {
    assert.equal(cellOf(2).status, 'active');
  });

  it("registers the app's own SIM cards (numbers masked to their last four digits), the operator then sets the numbers", async () => {
    const sims = twoSims();
    const enrollment = await enroll(t);
    const app = await appFor(t, enrollment, sims);
    const masked = sims.map((s) => `********${s.phoneNumber!.slice(-4)}`);
    assert.deepEqual(
      app.simCards().map((c) => c.phoneNumber),
      masked,
    );
    const registration = await app.register({ token: enrollment.token });
    type Line = { phone_number: string | null; cell_id: string | null; reported_number: string | null; hint: string };
    const read = async () =>
      (await t.app.inject({ url: `/v1/admin/devices/${registration.id}`, headers: admin })).json() as {
        phone_number: string | null;
        sims: Line[];
      };
    const registered = await read();
    assert.equal(registered.phone_number, null, 'no line has a known number yet');
    assert.deepEqual(
      registered.sims.map((s) => [s.phone_number, s.cell_id, s.reported_number]),
      masked.map((m) => [null, null, m]),
    );
    for (const line of registered.sims) assert.match(line.hint, /carries no cell until its number is set/);
    const pending = await t.app.inject({ url: '/v1/admin/devices/enrollments', headers: admin });
    assert.ok(
      !pending.json().enrollments.some((e: { id: string }) => e.id === enrollment.id),
      'the enrollment is spent',
    );

    const device = (await setSimNumbers(t, registration.id, sims)) as { phone_number: string; sims: Line[] };
    assert.deepEqual(
      device.sims.map((s) => [s.phone_number, s.hint]),
      sims.map((s) => [s.phoneNumber, null]),
    );
    assert.equal(device.phone_number, sims[0].phoneNumber);
    // Its lines are free for the next cells, like those of a phone registered with full numbers.
    const cell = await createCell(t, org.headers, 'After the numbers');
    assert.equal(cell.status, 'active');
    assert.equal(cell.phone_number, sims[0].phoneNumber);
    const carried = await read();
    assert.deepEqual(
      carried.sims.map((s) => s.cell_id),
      [cell.id, null],
    );
  });

  it('answers GET /device with externalIp, and keeps the numbers when the restarted app PATCHes its masked SIM cards', async () => {
    const info = await phone.getDevice();
    assert.equal(info.externalIp, '127.0.0.1');
    // At each start the app PATCHes /device with {id, pushToken, simCards}, numbers masked
    // (GatewayService.kt updateDevice): that must not wipe the numbers the lines carry.
    const restarted = new SmsGateApp({
      serverUrl: phone.serverUrl,
      reach: await listening(t),
      clock: t.clock,
      sims: phone.sims,
    });
    restarted.registration = phone.registration;
    await restarted.patchDevice();
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.registration!.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: { phone_number: string | null }) => s.phone_number),
      phone.sims.map((s) => s.phoneNumber),
    );
  });

  it("serves the app's settings map and the six webhooks, signed with a per-device key", () => {
    assert.match(phone.signingKey, /.{16,}/, 'the server set webhooks.signing_key');
    assert.deepEqual(phone.webhooks.map((w) => w.event).sort(), [
      'mms:received',
      'sms:delivered',
      'sms:failed',
      'sms:received',
      'sms:sent',
      'system:ping',
    ]);
  });

  /** A send from the cell of SIM `simNumber` through SSE wake, claim, Processed, Sent, Delivered. */
  async function deliveredLoop(simNumber: number) {
    const cell = cellOf(simNumber);
    const before = events.events.length;
    const queued = await send(cell, `Hello from SIM ${simNumber}`);
    await events.until(() => events.events.length > before, 'MessageEnqueued');
    assert.equal(events.events.at(-1)?.type, 'MessageEnqueued');
    const pulled = await phone.pullMessages();
    assert.equal(pulled.length, 1);
    const [claimed] = pulled;
    assert.equal(claimed.id, queued.id);
    assert.equal(claimed.text, `Hello from SIM ${simNumber}`);
    assert.deepEqual(claimed.phoneNumbers, ['+14155550199']);
    assert.equal(claimed.simNumber, simNumber, 'sent from the SIM of its cell');
    assert.equal(claimed.withDeliveryReport, true);

    await phone.advance(claimed.id, 'Processed');
    assert.equal((await message(cell, claimed.id)).status, 'sending');
    t.clock.advance(2_000);
    const sentAt = t.clock.now().toISOString();
    await phone.advance(claimed.id, 'Sent');
    const sent = await message(cell, claimed.id);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.sent_at, sentAt, 'sent_at is the Sent time of the states map');
    t.clock.advance(3_000);
    await phone.advance(claimed.id, 'Delivered');
    const delivered = await message(cell, claimed.id);
    assert.equal(delivered.status, 'delivered');
    assert.equal(delivered.sent_at, sentAt);
    assert.equal(delivered.delivered_at, t.clock.now().toISOString());
    assert.deepEqual(events.unknown, [], 'no event type the app does not know');
    // The app also posts sms:sent and sms:delivered for it: acknowledged, or it retries them.
    const webhooks = phone.deliveries.filter((d) => d.body.includes(claimed.id));
    assert.deepEqual(
      webhooks.map((d) => [d.event, d.status]),
      [
        ['sms:sent', 204],
        ['sms:delivered', 204],
      ],
      JSON.stringify(webhooks.map((d) => d.answer)),
    );
  }

  it('wakes the phone over SSE, hands it the message on SIM 1 of its cell, and ends delivered', () => deliveredLoop(1));

  it('does the same for the cell of SIM 2', () => deliveredLoop(2));

  it('ends a message failed with the error the phone reported', async () => {
    const cell = cellOf(1);
    const queued = await send(cell, 'This one fails');
    await phone.pullMessages();
    await phone.advance(queued.id, 'Processed');
    await phone.advance(queued.id, 'Failed', 'Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)');
    const failed = await message(cell, queued.id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error.message, /RESULT_ERROR_GENERIC_FAILURE/);
    // A final state never changes: a late Delivered report leaves it failed.
    await phone.reportStates([{ ...phone.patchOf(queued.id), state: 'Delivered' }]);
    assert.equal((await message(cell, queued.id)).status, 'failed');
  });

  /**
   * A signed sms:received on SIM `simNumber`: one inbound text on its cell; the app's retry of the
   * webhook and the same text sent again in a new envelope (the inbox exported after a reinstall)
   * are acknowledged and dropped.
   */
  async function receivedOn(simNumber: number) {
    const cell = cellOf(simNumber);
    const text = `Reply on SIM ${simNumber} & <more>`;
    const sms = { simNumber, sender: '+14155550177', text, receivedAt: t.clock.now() };
    const [delivery] = await phone.receiveSms(sms);
    assert.ok(delivery.status >= 200 && delivery.status < 300, `${delivery.status} ${delivery.answer}`);
    const replay = await phone.resend(delivery);
    assert.ok(replay.status >= 200 && replay.status < 300, 'a replay is acknowledged, or the app retries it');
    const [again] = await phone.receiveSms(sms);
    assert.notEqual(again.id, delivery.id, 'a new envelope');
    assert.ok(again.status >= 200 && again.status < 300, `${again.status} ${again.answer}`);
    const inbound = await t.app.inject({
      url: `/v1/cells/${cell.id}/messages?direction=inbound`,
      headers: org.headers,
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    const texts = (inbound.json().messages as { body: string; from: string }[]).filter((m) => m.body === text);
    assert.deepEqual(
      texts.map((m) => [m.from, m.body]),
      [['+14155550177', text]],
    );
  }

  it('takes a signed sms:received on SIM 1 as one inbound text on its cell, a replay deduplicated', () =>
    receivedOn(1));

  it('takes a signed sms:received on SIM 2 as an inbound text on the second cell', () => receivedOn(2));

  it('takes a signed mms:received on SIM 1 as an inbound notice on its cell', async () => {
    const [delivery] = await phone.receiveMms({
      simNumber: 1,
      sender: '+14155550188',
      transactionId: 'T1a2b3c',
      subject: 'Photo',
      size: 48_213,
    });
    assert.ok(delivery.status >= 200 && delivery.status < 300, `${delivery.status} ${delivery.answer}`);
    const inbound = await t.app.inject({
      url: `/v1/cells/${cellOf(1).id}/messages?direction=inbound`,
      headers: org.headers,
    });
    const notices = (inbound.json().messages as { from: string; body: string }[]).filter(
      (m) => m.from === '+14155550188',
    );
    assert.equal(notices.length, 1, inbound.body);
    assert.match(notices[0].body, /MMS/);
  });

  it('takes system:ping as a heartbeat with battery and charging', async () => {
    t.clock.advance(60_000);
    const [delivery] = await phone.ping({ batteryLevel: 64, charging: 'ac' });
    assert.ok(delivery.status >= 200 && delivery.status < 300, `${delivery.status} ${delivery.answer}`);
    const device = (await t.app.inject({ url: `/v1/admin/devices/${phone.registration!.id}`, headers: admin })).json();
    assert.equal(device.battery_pct, 64);
    assert.equal(device.charging, true);
    assert.equal(device.last_seen_at, t.clock.now().toISOString());
  });

  it('is told to ask oldest first: the settings map sets processing_order FIFO', () => {
    assert.equal(phone.processingOrder, 'fifo', 'MessagesSettings.kt: LIFO unless the settings say FIFO');
  });

  it('hands messages over newest first for an explicit ?order=lifo', async () => {
    t.clock.advance(60_000);
    const first = await send(cellOf(1), 'Older');
    t.clock.advance(1_000);
    const second = await send(cellOf(1), 'Newer');
    const pulled = await phone.pullMessages('lifo');
    assert.deepEqual(
      pulled.map((m) => m.id),
      [second.id, first.id],
    );
    for (const m of pulled) await phone.advance(m.id, 'Processed');
  });

  it('comes back after the stream drops: it reconnects and pulls what was queued meanwhile', async () => {
    const connects = events.connects;
    events.drop();
    const queued = await send(cellOf(1), 'While the stream was down');
    await events.until(() => events.connects > connects, 'the reconnect');
    const pulled = await phone.pullMessages();
    assert.deepEqual(
      pulled.map((m) => m.id),
      [queued.id],
    );
  });
});
