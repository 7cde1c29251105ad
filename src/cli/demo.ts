// `cellgate demo` (npm run demo): the whole product end to end on a temporary SQLite file — sign up,
// verify, three phones in the rack, a text from one cell to another, delivered and received, then a
// pod of three cells running a ring (each cell texts the next) with every hop printed.
// Everything goes through HTTP exactly as an agent, the operator and the phones would call it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../app.ts';
import { dollars, dollarsOfNumber } from '../modules/billing/money.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { SimulatedNetwork, startSimulatedDevice, type SimulatedDevice } from './device-simulator.ts';
import { parseCommandLine } from './usage.ts';

export const DEMO_USAGE = `usage: cellgate demo
  the whole product end to end on a temporary SQLite database (deleted afterwards): sign-up, a payment,
  three simulated phones, a text from one cell to another, a pod ring; takes no options`;

type Json = Record<string, unknown>;

const RACK = [
  { phone_number: '+14155550101', label: 'demo rack slot 1' },
  { phone_number: '+14155550102', label: 'demo rack slot 2' },
  { phone_number: '+14155550103', label: 'demo rack slot 3' },
];
const DELIVERY_TIMEOUT_MS = 30_000;

export async function demoCommand(
  args: string[],
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  parseCommandLine({ command: 'cellgate demo', usage: DEMO_USAGE, options: {} }, args);
  const cleanups: (() => Promise<void>)[] = [];
  let stepNumber = 0;
  const step = (text: string) => out(`\n[${++stepNumber}] ${text}`);
  const show = (text: string) => out(`    ${text}`);

  try {
    step('Starting Cellgate on a temporary SQLite database');
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-demo-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const adminToken = `cg_adm_${randomBytes(16).toString('hex')}`;
    // A fixed environment, not process.env: the demo must behave the same on every machine.
    const config = loadConfig({
      CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`,
      CELLGATE_HOST: '127.0.0.1',
      CELLGATE_PORT: '0',
      CELLGATE_ADMIN_TOKEN: adminToken,
      CELLGATE_LOG_LEVEL: 'warn',
    });
    const database = openDatabase(config.databaseUrl);
    cleanups.push(() => database.close());
    await migrateToLatest(database);
    const { app } = await buildApp({ config, database });
    cleanups.push(() => app.close());
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = address.replace('[::1]', '127.0.0.1');
    show(`listening on ${baseUrl}, database ${join(dir, 'demo.db')}`);

    const api = client(baseUrl);
    const email = `demo-${randomBytes(3).toString('hex')}@example.com`;

    step(`Signing up ${email}`);
    const signUp = await api('POST', '/v1/agent/sign-up', {
      body: { email, organization_name: 'Demo Agents' },
      expect: 201,
    });
    const apiKey = String(signUp.api_key);
    show(
      `organization ${String(signUp.organization_id)} is ${String(signUp.status)}; API key ${apiKey.slice(0, 12)}...`,
    );

    step('Reading the one-time code from the dev outbox (admin) and verifying');
    const outbox = await api('GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}&limit=1`, { token: adminToken });
    const mail = (outbox.messages as Json[])[0];
    const code = String(mail?.text ?? '').match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no one-time code was mailed to ${email}`);
    const verified = await api('POST', '/v1/agent/verify', { token: apiKey, body: { code } });
    show(`code ${code} accepted: organization is ${String(verified.status)}`);

    step('Billing: a cell needs a paid tier, and the 402 says what to pay');
    const refused = await api('POST', '/v1/cells?tier=pro', {
      token: apiKey,
      body: { display_name: 'Agent A' },
      expect: 402,
    });
    const due = refused.payment as Json;
    show(
      `402 ${String(refused.code)}: ${String(due.intent)} of ${String(due.tier)} for ${dollars(String(due.amount_usd))}, rails ${(due.rails as string[]).join(', ')}`,
    );
    await payOnCheckoutPage(api, baseUrl, apiKey, { intent: 'setup', tier: 'pro' }, show);
    await payOnCheckoutPage(api, baseUrl, apiKey, { intent: 'top_up', amount_usd: '5.00' }, show);
    const billing = await api('GET', '/v1/billing/status', { token: apiKey });
    show(
      `billing is ${String(billing.state)} on ${String(billing.tier)} until ${String(billing.current_period_end)}; prepaid balance ${dollarsOfNumber(Number(billing.prepaid_balance_usd))} (a text costs $0.01 a segment)`,
    );

    step('Adding three phones to the rack (admin device inventory)');
    const devices: { id: string; phoneNumber: string; key: string }[] = [];
    for (const phone of RACK) {
      const device = await api('POST', '/v1/admin/devices', { token: adminToken, body: phone, expect: 201 });
      devices.push({ id: String(device.id), phoneNumber: String(device.phone_number), key: String(device.device_key) });
      show(
        `${String(device.id)} ${String(device.phone_number)} (${phone.label}); device key shown once: ${String(device.device_key).slice(0, 12)}...`,
      );
    }

    step('Switching the phones on (simulated devices: heartbeat, then long-poll for work; they text each other)');
    const phones = new Map<string, SimulatedDevice>();
    const rack = new SimulatedNetwork();
    for (const device of devices) {
      const phone = await startSimulatedDevice({
        baseUrl,
        key: device.key,
        deliveryDelayMs: 300,
        pollWaitSeconds: 5,
        network: rack,
        logger: (line) => show(`phone ${line}`),
      });
      cleanups.push(() => phone.stop());
      phones.set(device.phoneNumber, phone);
    }

    step('Creating two cells (each gets a free phone from the rack)');
    const cellA = await api('POST', '/v1/cells', { token: apiKey, body: { display_name: 'Agent A' }, expect: 201 });
    const cellB = await api('POST', '/v1/cells', { token: apiKey, body: { display_name: 'Agent B' }, expect: 201 });
    for (const cell of [cellA, cellB]) {
      show(cellLine(cell));
      if (cell.status !== 'active' || !phones.has(String(cell.phone_number)))
        throw new Error(`cell ${String(cell.id)} did not get a phone from the rack`);
    }

    const text = `Hello from Agent A (${new Date().toISOString()})`;
    step(`Sending from cell A (${String(cellA.phone_number)}) to cell B's number ${String(cellB.phone_number)}`);
    const sent = await api('POST', `/v1/cells/${String(cellA.id)}/messages/send`, {
      token: apiKey,
      headers: { 'idempotency-key': `demo-${randomBytes(8).toString('hex')}` },
      body: { to: cellB.phone_number, body: text },
      expect: 202,
    });
    show(`202 accepted: ${String(sent.id)} is ${String(sent.status)} (${String(sent.segments)} segment)`);

    step('Waiting for phone A to send it and report delivery');
    let last = '';
    const delivered = await waitFor(async () => {
      const message = await api('GET', `/v1/cells/${String(cellA.id)}/messages/${String(sent.id)}`, { token: apiKey });
      const status = String(message.status);
      if (status !== last) show(`message ${String(sent.id)} is ${(last = status)}`);
      if (status === 'failed' || status === 'canceled')
        throw new Error(`the message ended ${status}: ${JSON.stringify(message.error)}`);
      return status === 'delivered' ? message : undefined;
    }, 'the message to be delivered');
    show(`delivered_at ${String(delivered.delivered_at)}`);

    step("Phone B is in the same rack: it received the text and reported it; reading cell B's inbound messages");
    const received = await waitFor(async () => {
      const inbound = await api('GET', `/v1/cells/${String(cellB.id)}/messages?direction=inbound&limit=5`, {
        token: apiKey,
      });
      return (inbound.messages as Json[]).find((m) => m.body === text);
    }, 'cell B to receive the text');
    show(
      `${String(received.id)} ${String(received.status)} from ${String(received.from)} to ${String(received.to)}: "${String(received.body)}"`,
    );

    step('Creating a third cell and a pod of the three cells');
    const cellC = await api('POST', '/v1/cells', { token: apiKey, body: { display_name: 'Agent C' }, expect: 201 });
    show(cellLine(cellC));
    const ring = [cellA, cellB, cellC];
    const pod = await api('POST', '/v1/pods', {
      token: apiKey,
      body: {
        name: 'Demo pod',
        client_id: `demo-pod-${randomBytes(4).toString('hex')}`,
        cell_ids: ring.map((cell) => cell.id),
      },
      expect: 201,
    });
    show(`${String(pod.id)} "${String(pod.name)}" with ${(pod.cell_ids as string[]).join(', ')}`);

    step('Running a ring on the pod: each cell texts the next, and the job waits until the next cell received it');
    const started = await api('POST', `/v1/pods/${String(pod.id)}/messages/cycle`, {
      token: apiKey,
      headers: { 'idempotency-key': `demo-ring-${randomBytes(8).toString('hex')}` },
      body: { mode: 'ring' },
      expect: 202,
    });
    show(`202 accepted: ${String(started.id)} is ${String(started.status)}, ${JSON.stringify(started.counts)}`);
    let seen = '';
    const job = await waitFor(async () => {
      const now = await api('GET', `/v1/pods/${String(pod.id)}/jobs/${String(started.id)}`, { token: apiKey });
      const line = `${String(now.status)} ${JSON.stringify(now.counts)}`;
      if (line !== seen) show(`job ${String(now.id)} is ${(seen = line)}`);
      if (now.status === 'failed' || now.status === 'canceled')
        throw new Error(`the ring ended ${String(now.status)}: ${JSON.stringify(now.counts)}`);
      return now.status === 'completed' ? now : undefined;
    }, 'the ring to complete');
    for (const [i, from] of ring.entries()) {
      const to = ring[(i + 1) % ring.length];
      const hop = await ringHop(api, apiKey, from, to);
      show(
        `hop ${i + 1}: ${String(from.display_name)} (${String(from.phone_number)}) -> ${String(to.display_name)} (${String(to.phone_number)}): sent ${hop.sent}, received as ${hop.received}`,
      );
    }
    show(`ring ${String(job.id)} completed at ${String(job.completed_at)}`);

    step('Done: sent by cell A, delivered, and received by cell B; a ring around the pod. Cleaning up.');
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) =>
        out(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }
}

const cellLine = (cell: Json) =>
  `${String(cell.id)} "${String(cell.display_name)}" ${String(cell.status)} on ${String(cell.phone_number)}`;

type Api = (
  method: string,
  path: string,
  options?: { token?: string; headers?: Record<string, string>; body?: unknown; expect?: number },
) => Promise<Json>;

function client(baseUrl: string): Api {
  return async (method, path, options = {}) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    if (response.status !== (options.expect ?? 200))
      throw new Error(`${method} ${path}: expected ${options.expect ?? 200}, got ${response.status} ${text}`);
    return JSON.parse(text) as Json;
  };
}

/** Calls `check` every 100 ms until it returns something; throws after the delivery timeout. */
async function waitFor<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${DELIVERY_TIMEOUT_MS / 1000} s for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** The ring text `from` sent to `to`, and the text `to` received from `from` (the newest of each). */
async function ringHop(api: Api, apiKey: string, from: Json, to: Json): Promise<{ sent: string; received: string }> {
  const newest = async (cell: Json, participant: Json, direction: string) => {
    const page = await api(
      'GET',
      `/v1/cells/${String(cell.id)}/messages?direction=${direction}&participant=${encodeURIComponent(String(participant.phone_number))}&limit=1`,
      { token: apiKey },
    );
    const [message] = page.messages as Json[];
    return message ? `${String(message.id)} (${String(message.status)})` : 'nothing';
  };
  return { sent: await newest(from, to, 'outbound'), received: await newest(to, from, 'inbound') };
}

/** Pays an intent on the local card checkout page, as a person would: open it, press Pay (post its form). */
async function payOnCheckoutPage(
  api: Api,
  baseUrl: string,
  apiKey: string,
  intent: Json,
  show: (text: string) => void,
): Promise<void> {
  const checkout = await api('POST', '/v1/billing/checkout', { token: apiKey, body: intent, expect: 201 });
  // The demo listens on a port chosen at start, which the configured base URL cannot know.
  const link = new URL(String(checkout.checkout_url));
  const url = `${baseUrl}${link.pathname}${link.search}`;
  const page = await fetch(url);
  if (page.status !== 200 || !(await page.text()).includes('<form method="post"'))
    throw new Error(`the checkout page ${url} has no Pay form`);
  const paid = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  if (paid.status !== 200) throw new Error(`paying on ${url} failed: ${paid.status}`);
  show(`paid ${String(checkout.intent)} ${dollars(String(checkout.amount_usd))} on the card page ${url.split('?')[0]}`);
}
