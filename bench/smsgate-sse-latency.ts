// SMSGate wake-up latency (issue 34 §7): a message queued through the REST API reaches a phone
// running the SMSGate app as `MessageEnqueued` on its SSE stream (GET /mobile/v1/events). Phones
// enrolled and registered with two SIM cards through the app's test double, streams held open;
// then one send at a time, measured from just before the request (and from its 202) to the event
// arriving; the phone then pulls the message and reports Processed, Sent and Delivered
// (PATCH /mobile/v1/message), timed against the native device surface's reports
// (POST /v1/device/messages/{id}/events) of phones driven the same way.
// Target: p50 < 100 ms from the send to the event; state reports no dearer than the native ones.
//   node bench/smsgate-sse-latency.ts [--postgres] [--messages 300]
// (PostgreSQL also when CELLGATE_TEST_POSTGRES_URL is set; it then creates its database there.)
import { randomUUID } from 'node:crypto';
import { SmsGateApp } from '../test/support/smsgate-app.ts';
import type { EventsConnection } from '../test/support/smsgate-sse.ts';
import { benchOptions, runBench, serverTimes, signUpVerified, startService, type Service } from './lib.ts';
import { machineLoad, percentile, provisionCell, request, type BenchCell } from './support/cells.ts';

const TARGET_P50_MS = 100;
const WARMUP_MESSAGES = 20;
/** The most SMS segments a phone is handed a minute: probes rotate over enough phones that none is paced. */
const MAX_RATE = 30;
const MAX_MESSAGES = 2_000;

// --messages is this benchmark's own flag; the rest are bench/lib.ts's common flags.
const argv = process.argv.slice(2);
const at = argv.indexOf('--messages');
const count = at >= 0 ? Number(argv.splice(at, 2)[1]) : 300;
if (!Number.isInteger(count) || count < 1 || count > MAX_MESSAGES)
  throw new Error(`--messages must be an integer from 1 to ${MAX_MESSAGES}`);
const options = benchOptions(argv);
const testPostgres = process.env.CELLGATE_TEST_POSTGRES_URL;
if (testPostgres && !process.env.CELLGATE_BENCH_POSTGRES_URL) process.env.CELLGATE_BENCH_POSTGRES_URL = testPostgres;
const PHONES = Math.ceil((count + WARMUP_MESSAGES) / MAX_RATE);

interface Phone {
  app: SmsGateApp;
  events: EventsConnection;
  cellIds: string[];
}

let numbers = 0;
/** Distinct numbers (+1 415 557 xxxx), apart from provisionCell's (+1 415 556 xxxx). */
const nextNumber = () => `+1415557${String(numbers++).padStart(4, '0')}`;

/** Enrolls a phone, registers it with two SIM cards as the app does, opens its stream; then a cell per line. */
async function smsgatePhone(service: Service, apiKey: string): Promise<Phone> {
  const enrollment = await request(`${service.url}/v1/admin/devices/enrollments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}` },
    body: { label: 'bench', send_rate_per_minute: MAX_RATE, daily_send_limit: 10_000 },
    expect: 201,
  });
  const sims = [
    { slotIndex: 0, phoneNumber: nextNumber(), carrierName: 'T-Mobile', iccid: '8901260222712345678' },
    { slotIndex: 1, phoneNumber: nextNumber(), carrierName: 'Mint Mobile', iccid: '8901240197154321098' },
  ];
  const app = new SmsGateApp({ serverUrl: String(enrollment.server_url), reach: service.url, sims });
  // The app sends the numbers redacted; the operator sets them, as docs/android.md says.
  const registration = await app.register({ token: String(enrollment.token) });
  await request(`${service.url}/v1/admin/devices/${registration.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${service.adminToken}` },
    body: { sims: sims.map((sim) => ({ sim_number: sim.slotIndex + 1, phone_number: sim.phoneNumber })) },
    expect: 200,
  });
  await app.fetchSettings();
  // No webhook list: the phone reports states by PATCH only, the cost measured here.
  const events = await app.openEvents();
  const cellIds: string[] = [];
  for (let line = 0; line < 2; line += 1) {
    const cell = await request(`${service.url}/v1/cells`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: { display_name: `bench SIM ${line + 1}` },
      expect: 201,
    });
    if (cell.status !== 'active') throw new Error(`the cell got no SIM line: ${JSON.stringify(cell)}`);
    cellIds.push(String(cell.id));
  }
  return { app, events, cellIds };
}

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres || Boolean(testPostgres), profile: options.profile });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const phones: Phone[] = [];
  onExit(async () => phones.forEach((phone) => phone.app.stop()));
  for (let i = 0; i < PHONES; i += 1) phones.push(await smsgatePhone(service, org.apiKey));
  const natives: BenchCell[] = [];
  for (let i = 0; i < PHONES; i += 1) natives.push(await provisionCell(service, org, { sendRatePerMinute: MAX_RATE }));

  const send = (cellId: string, i: number) =>
    request(`${service.url}/v1/cells/${cellId}/messages/send`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      body: { to: '+14155550199', body: `latency probe ${i}` },
      expect: 202,
    });
  const timed = async (samples: number[] | null, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    samples?.push(performance.now() - started);
  };

  // One message through each door in turn, so both meet the same load (the machine is shared).
  const fromRequest: number[] = [];
  const from202: number[] = [];
  const appReports = { Processed: [] as number[], Sent: [] as number[], Delivered: [] as number[] };
  const nativeReports = { sent: [] as number[], delivered: [] as number[] };

  /** SMSGate: send → MessageEnqueued on the stream → pull → Processed, Sent, Delivered. */
  const throughSmsgate = async (i: number, measuring: boolean) => {
    const phone = phones[i % PHONES];
    const seen = phone.events.events.length;
    const started = performance.now();
    const { id } = await send(phone.cellIds[Math.floor(i / PHONES) % 2], i);
    const accepted = performance.now();
    await phone.events.until(() => phone.events.events.length > seen, `MessageEnqueued for ${String(id)}`, 10_000);
    // The event may even come before the 202 is read: then the wait above returned at once.
    const arrived = performance.now();
    if (phone.events.events[seen].type !== 'MessageEnqueued')
      throw new Error(`not MessageEnqueued: ${phone.events.events[seen].type}`);
    const pulled = await phone.app.pullMessages('fifo');
    if (pulled.length !== 1 || pulled[0].id !== id)
      throw new Error(`pulled ${JSON.stringify(pulled)} for ${String(id)}`);
    for (const state of ['Processed', 'Sent', 'Delivered'] as const)
      await timed(measuring ? appReports[state] : null, () => phone.app.advance(String(id), state));
    if (measuring) {
      fromRequest.push(arrived - started);
      from202.push(arrived - accepted);
    }
  };

  /** The native device surface: send → claim → sent, delivered. */
  const throughNative = async (i: number, measuring: boolean) => {
    const cell = natives[i % PHONES];
    const phone = { 'x-phone-key': cell.deviceKey };
    const { id } = await send(cell.cellId, i);
    const claimed = await request(`${service.url}/v1/device/messages/outbound`, { headers: phone });
    const messages = claimed.messages as { id: string }[];
    if (messages.length !== 1 || messages[0].id !== id)
      throw new Error(`claimed ${JSON.stringify(claimed)} for ${String(id)}`);
    for (const event of ['sent', 'delivered'] as const)
      await timed(measuring ? nativeReports[event] : null, () =>
        request(`${service.url}/v1/device/messages/${String(id)}/events`, {
          method: 'POST',
          headers: phone,
          body: { event_id: randomUUID(), event, occurred_at: new Date().toISOString() },
        }),
      );
  };

  let before = await serverTimes(service);
  for (let i = 0; i < WARMUP_MESSAGES + count; i += 1) {
    if (i === WARMUP_MESSAGES) before = await serverTimes(service);
    await throughSmsgate(i, i >= WARMUP_MESSAGES);
    await throughNative(i, i >= WARMUP_MESSAGES);
  }
  const server = serverDelta(before, await serverTimes(service));

  const row = (label: string, samples: number[]) =>
    `${label.padEnd(44)} p50 ${fixed(percentile(samples, 50))} ms  p90 ${fixed(percentile(samples, 90))} ms  p99 ${fixed(
      percentile(samples, 99),
    )} ms  max ${fixed(Math.max(...samples))} ms`;
  const p50 = percentile(fromRequest, 50);
  const appPatch = server.get('PATCH /mobile/v1/message');
  const nativeEvent = server.get('POST /v1/device/messages/:message_id/events');
  process.stdout.write(
    [
      `SMSGate SSE wake-up on ${service.database}: ${count} sequential sends after ${WARMUP_MESSAGES} warm-up, over ${PHONES} dual-SIM phones (${MAX_RATE} segments/min each), streams held open`,
      row('send request → MessageEnqueued on the stream', fromRequest),
      row('202 answered → MessageEnqueued', from202),
      `p50 ${p50.toFixed(1)} ms (target < ${TARGET_P50_MS}) ${p50 < TARGET_P50_MS ? 'MET' : 'NOT MET'}`,
      '',
      'state reports, as the phone sees them (one report a request; the two doors take turns, message by message):',
      row('  SMSGate PATCH /mobile/v1/message Processed', appReports.Processed),
      row('  SMSGate PATCH /mobile/v1/message Sent', appReports.Sent),
      row('  SMSGate PATCH /mobile/v1/message Delivered', appReports.Delivered),
      row('  native POST .../events sent', nativeReports.sent),
      row('  native POST .../events delivered', nativeReports.delivered),
      `  the service's own mean time a report: SMSGate ${meanMs(appPatch)}, native ${meanMs(nativeEvent)}`,
      machineLoad(),
    ].join('\n') + '\n',
  );
});

type Times = Map<string, { count: number; seconds: number }>;

function serverDelta(before: Times, after: Times): Times {
  const delta: Times = new Map();
  for (const [route, time] of after) {
    const earlier = before.get(route) ?? { count: 0, seconds: 0 };
    delta.set(route, { count: time.count - earlier.count, seconds: time.seconds - earlier.seconds });
  }
  return delta;
}

function meanMs(time: { count: number; seconds: number } | undefined): string {
  return time && time.count > 0 ? `${((time.seconds * 1000) / time.count).toFixed(2)} ms (${time.count})` : '-';
}

function fixed(ms: number): string {
  return ms.toFixed(1).padStart(6);
}
