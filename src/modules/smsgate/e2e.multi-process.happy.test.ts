// Two real server processes on one PostgreSQL database and a dual-SIM phone running the SMSGate
// app (its test double): the phone's SSE stream and its claims go to process A while the sends
// are queued through process B; A's stream announces each (MessageEnqueued) and A hands the phone
// each message once.
//
// Contract §13: any process can serve the stream; a send through B wakes A's stream through
// PostgreSQL NOTIFY, also right after the phone claimed the previous message on A.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  activeOrganizationOn,
  call,
  PROCESS_ADMIN_TOKEN,
  skipUnlessPostgres,
  type ChildServer,
} from '../../../test/processes.ts';
import { useServerProcesses } from '../../../test/support/server-processes.ts';
import { uniquePhoneNumber } from '../../../test/support/devices.ts';
import { SmsGateApp } from '../../../test/support/smsgate-app.ts';
import type { EventsConnection } from '../../../test/support/smsgate-sse.ts';
import { simNumbersOf } from '../../../test/support/smsgate-phone.ts';

describe('an SMSGate phone on one process while another queues', { skip: skipUnlessPostgres }, () => {
  const servers = useServerProcesses('cellgate_smsgmp');
  let a: ChildServer;
  let b: ChildServer;
  let phone: SmsGateApp | undefined;
  let events: EventsConnection;
  let org: { api_key: string };
  let cellId: string;

  before(async () => {
    ({ a, b } = servers);
    const enrollment = await call(b, 'POST', '/v1/admin/devices/enrollments', PROCESS_ADMIN_TOKEN, {});
    const sims = [
      { slotIndex: 0, phoneNumber: uniquePhoneNumber(), carrierName: 'T-Mobile' },
      { slotIndex: 1, phoneNumber: uniquePhoneNumber(), carrierName: 'Mint Mobile' },
    ];
    phone = new SmsGateApp({ serverUrl: enrollment.server_url, reach: a.url, sims });
    // The app reports its SIM numbers redacted: the operator sets them.
    const registration = await phone.register({ token: enrollment.token });
    await call(b, 'PATCH', `/v1/admin/devices/${registration.id}`, PROCESS_ADMIN_TOKEN, { sims: simNumbersOf(sims) });
    await phone.fetchSettings();
    org = await activeOrganizationOn(b, 'smsgmp');
    // The cell of SIM 1 (SIM 2's stays provisioning: GAP A in e2e.happy.test.ts).
    const cell = await call(b, 'POST', '/v1/cells', org.api_key, { display_name: 'SIM 1' });
    assert.equal(cell.status, 'active');
    cellId = cell.id;
    events = await phone.openEvents({ reconnectDelayMs: () => 100 });
    assert.equal(events.connects, 1, events.failures.join(', '));
  });
  after(async () => {
    phone?.stop();
  });

  /** Queues through B, waits for A's MessageEnqueued, claims on A; the time to the event. */
  async function queueThroughB(body: string): Promise<number> {
    const seen = events.events.length;
    const started = Date.now();
    const sent = await call(b, 'POST', `/v1/cells/${cellId}/messages/send`, org.api_key, { to: '+14155550144', body });
    await events.until(() => events.events.length > seen, `MessageEnqueued for "${body}"`);
    const took = Date.now() - started;
    const pulled = await phone!.pullMessages('fifo');
    assert.deepEqual(
      pulled.map((m) => m.id),
      [sent.id],
    );
    await phone!.advance(sent.id, 'Processed');
    return took;
  }

  it('wakes the phone on A for a message queued through B, and A hands it over once', async () => {
    await queueThroughB('Queued on B');
    assert.deepEqual(await phone!.pullMessages('fifo'), [], 'nothing is handed over twice');
    assert.deepEqual(events.unknown, []);
  });

  it('does so for messages queued back to back, within NOTIFY time', async () => {
    const took: number[] = [];
    for (let i = 0; i < 5; i += 1) took.push(await queueThroughB(`Back to back ${i}`));
    took.sort((x, y) => x - y);
    assert.ok(took[2] < 500, `median ${took[2]} ms: woken by NOTIFY, not a poll (${took.join(', ')} ms)`);
  });
});
