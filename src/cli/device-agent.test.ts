// `cellgate device run|doctor` (the Termux agent) against a listening app, with fake termux-*
// commands on PATH (test/fixtures/termux: they record their arguments and print what Termux:API prints).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { admin } from '../../test/harness.ts';
import { listeningWorld, Reports, type World } from '../../test/simulator/support.ts';
import { doctor, startAgent, type Agent, type AgentOptions } from './device-agent.ts';

const FIXTURES = resolve(import.meta.dirname, '../../test/fixtures/termux');
const BIN = join(FIXTURES, 'bin');

interface Phone {
  dir: string;
  env: NodeJS.ProcessEnv;
  calls(command?: string): { command: string; args: string[] }[];
  /** The inbox as termux-sms-list prints it (oldest first, pretty JSON). */
  inbox(texts: { id: number; from: string; body: string }[]): void;
  set(name: string, text: string): void;
}

function fakePhone(binDir = BIN): Phone {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-termux-'));
  const env = { PATH: [binDir, dirname(process.execPath), '/usr/bin', '/bin'].join(':'), FAKE_TERMUX_DIR: dir };
  return {
    dir,
    env,
    calls(command) {
      const file = join(dir, 'calls.jsonl');
      if (!existsSync(file)) return [];
      const all = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
      return command ? all.filter((c) => c.command === command) : all;
    },
    inbox(texts) {
      const entries = texts.map((t) => ({ threadid: 1, type: 'inbox', read: false, address: t.from, number: t.from, received: '2026-11-21 05:56:12', body: t.body, _id: t.id }));
      writeFileSync(join(dir, 'inbox.json'), `${JSON.stringify(entries, null, 2)}\n`);
    },
    set(name, text) {
      writeFileSync(join(dir, name), text);
    },
  };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** A TCP proxy in front of the app that can be shut (connection refused, open sockets cut) and opened again on its port. */
async function outageProxy(target: string) {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((done) => {
      server = createServer((client) => {
        const upstream = connect(Number(url.port), url.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => { client.destroy(); upstream.destroy(); });
          s.on('close', () => { sockets.delete(s); client.destroy(); upstream.destroy(); });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server?.address() as AddressInfo).port;
        done();
      });
    });
  await open();
  return {
    url: () => `http://127.0.0.1:${port}`,
    open,
    shut: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server?.close(() => done());
      }),
  };
}

describe('cellgate device run (Termux) against a listening service', () => {
  let world: World;
  const agents: Agent[] = [];
  const dirs: string[] = [];
  before(async () => {
    world = await listeningWorld();
  });
  after(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await world.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function agent(phone: Phone, key: string, options: Partial<AgentOptions> = {}) {
    dirs.push(phone.dir);
    const lines: string[] = [];
    const reports = new Reports();
    const started = await startAgent({
      baseUrl: world.baseUrl,
      key,
      stateDir: join(phone.dir, 'state'),
      env: phone.env,
      pollWaitSeconds: 1,
      inboxIntervalMs: 100,
      commandTimeoutMs: 5_000,
      maxBackoffMs: 300,
      heartbeatIntervalMs: 60_000,
      logger: (line) => lines.push(line),
      now: () => world.t.clock.now(),
      onReport: reports.record,
      ...options,
    });
    agents.push(started);
    return { agent: started, lines, reports, logged: (pattern: RegExp) => eventually(`a log line ${pattern}\n${lines.join('\n')}`, () => lines.some((l) => pattern.test(l))) };
  }

  async function inbound(cellId: string): Promise<{ body: string; from: string }[]> {
    const list = await world.t.app.inject({ url: `/v1/cells/${cellId}/messages?direction=inbound`, headers: world.org.headers });
    assert.equal(list.statusCode, 200);
    return list.json().messages;
  }

  it('sends through termux-sms-send -n <number> <text>, reports sent, and heartbeats the battery and signal', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    const { reports } = await agent(phone, device.key);
    const id = await world.send(cellId, '+14155550150', 'Your code is 123456');
    await reports.until(id, 'sent');
    assert.deepEqual(phone.calls('termux-sms-send').map((c) => c.args), [['-n', '+14155550150', 'Your code is 123456']]);
    assert.equal((await world.message(cellId, id)).status, 'sent');
    const view = (await world.t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(view.battery_pct, 87);
    assert.equal(view.charging, true);
    assert.equal(view.signal_dbm, -71);
    assert.match(view.app_version, /^cellgate-termux\//);
  });

  it('picks the SIM slot on a dual-SIM phone (-s)', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    const { reports } = await agent(phone, device.key, { simSlot: 1 });
    const id = await world.send(cellId, '+14155550151', 'From the second SIM');
    await reports.until(id, 'sent');
    assert.deepEqual(phone.calls('termux-sms-send').map((c) => c.args), [['-n', '+14155550151', '-s', '1', 'From the second SIM']]);
  });

  it('reports failed with the command error when termux-sms-send fails', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    phone.set('send-mode', 'fail');
    const { reports } = await agent(phone, device.key);
    const id = await world.send(cellId, '+14155550152', 'No signal');
    await reports.until(id, 'failed');
    const message = await world.message(cellId, id);
    assert.equal(message.status, 'failed');
    assert.deepEqual(message.error, { code: 'generic_failure', message: 'Error: RESULT_ERROR_GENERIC_FAILURE' });
  });

  it('kills a termux-sms-send that hangs and reports it failed (command_timeout)', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    phone.set('send-mode', 'hang');
    const { reports } = await agent(phone, device.key, { commandTimeoutMs: 500 });
    const id = await world.send(cellId, '+14155550153', 'Stuck');
    await reports.until(id, 'failed');
    const message = await world.message(cellId, id);
    assert.equal((message.error as { code: string }).code, 'command_timeout');
  });

  it('uploads each inbox text once, even across a restart, and not the texts that were there before it started', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    const old = { id: 5, from: '+14155550160', body: 'before the agent' };
    phone.inbox([old]);
    const first = await agent(phone, device.key);
    await first.logged(/inbox: starting after text 5/);
    phone.inbox([old, { id: 6, from: '+14155550160', body: 'six' }, { id: 7, from: '+14155550161', body: 'seven' }]);
    await eventually('two inbound texts', async () => (await inbound(cellId)).length === 2);
    await first.agent.stop();

    const second = await agent(phone, device.key);
    await eventually('a few inbox reads', () => phone.calls('termux-sms-list').length >= 8);
    phone.inbox([old, { id: 6, from: '+14155550160', body: 'six' }, { id: 7, from: '+14155550161', body: 'seven' }, { id: 8, from: '+14155550160', body: 'eight' }]);
    await eventually('three inbound texts', async () => (await inbound(cellId)).length === 3);
    await new Promise((done) => setTimeout(done, 400));
    assert.deepEqual((await inbound(cellId)).map((m) => m.body).sort(), ['eight', 'seven', 'six']);
    assert.equal(second.agent.outbox.size, 0);
  });

  it('skips malformed JSON from termux-sms-list and carries on', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    phone.inbox([]);
    const { logged } = await agent(phone, device.key);
    await logged(/inbox: starting after text 0/);
    phone.set('inbox.json', '[\n  {\n    "threadid": 1,\n    "_id": 3,');
    await logged(/termux-sms-list printed malformed JSON/);
    phone.inbox([{ id: 3, from: '+14155550162', body: 'after the glitch' }]);
    await eventually('the text', async () => (await inbound(cellId)).length === 1);
  });

  it('recovers from a corrupted state file without uploading old texts again', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    mkdirSync(join(phone.dir, 'state'));
    writeFileSync(join(phone.dir, 'state', 'state.json'), '{"last_inbox_id": 4');
    const texts = [{ id: 1, from: '+14155550163', body: 'old one' }, { id: 2, from: '+14155550163', body: 'old two' }];
    phone.inbox(texts);
    const { logged } = await agent(phone, device.key);
    await logged(/state\.json is corrupted/);
    await logged(/inbox: starting after text 2/);
    phone.inbox([...texts, { id: 3, from: '+14155550163', body: 'new' }]);
    await eventually('the new text', async () => (await inbound(cellId)).length === 1);
    assert.deepEqual((await inbound(cellId)).map((m) => m.body), ['new']);
    assert.deepEqual(JSON.parse(readFileSync(join(phone.dir, 'state', 'state.json'), 'utf8')).last_inbox_id, 3);
  });

  it('rides out a service outage: reports and inbound texts wait in the outbox, nothing lost or repeated', async () => {
    const { cellId, device } = await world.cell();
    const proxy = await outageProxy(world.baseUrl);
    const phone = fakePhone();
    phone.inbox([]);
    phone.set('send-mode', 'slow:800');
    const { agent: running, reports, logged, lines } = await agent(phone, device.key, { baseUrl: proxy.url() });
    await logged(/inbox: starting after text 0/);
    const first = await world.send(cellId, '+14155550170', 'sent during the outage');
    await eventually('the send to start', () => phone.calls('termux-sms-send').length === 1);
    await proxy.shut();
    phone.inbox([{ id: 1, from: '+14155550171', body: 'received during the outage' }]);
    const second = await world.send(cellId, '+14155550172', 'queued during the outage');
    await logged(/outbox: .*network error/);
    await logged(/claim: network error/);
    await eventually('the report and the text queued', () => running.outbox.size >= 2);
    await new Promise((done) => setTimeout(done, 500));
    await proxy.open();
    await reports.until(first, 'sent').catch((error) => { throw new Error(`${error.message}\n${lines.join('\n')}`); });
    await reports.until(second, 'sent');
    await eventually('the inbound text', async () => (await inbound(cellId)).length === 1);
    await eventually('an empty outbox', () => running.outbox.size === 0);
    assert.equal((await world.message(cellId, first)).status, 'sent');
    assert.equal((await world.message(cellId, second)).status, 'sent');
    assert.deepEqual(phone.calls('termux-sms-send').map((c) => c.args[1]), ['+14155550170', '+14155550172']);
    assert.deepEqual(reports.of(first), ['sent']);
    assert.deepEqual((await inbound(cellId)).map((m) => m.body), ['received during the outage']);
    await running.stop();
    await proxy.shut();
  });

  it('stops with a clear message when its key is rotated (401)', async () => {
    const { device } = await world.cell();
    const phone = fakePhone();
    const { agent: running } = await agent(phone, device.key);
    const rotated = await world.t.app.inject({ method: 'POST', url: `/v1/admin/devices/${device.id}/rotate-key`, headers: admin });
    assert.equal(rotated.statusCode, 200);
    await running.stopped;
    assert.match(String(running.fatal()?.message), /401 unauthenticated/);
    await assert.rejects(startAgent({ baseUrl: world.baseUrl, key: device.key, stateDir: join(phone.dir, 'state'), env: phone.env, logger: () => {} }), /heartbeat: 401/);
  });
});

describe('cellgate device doctor', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('passes on a ready phone', async () => {
    const { device } = await world.cell();
    const phone = fakePhone();
    phone.inbox([]);
    const checks = await doctor({ baseUrl: world.baseUrl, key: device.key, env: phone.env, now: () => world.t.clock.now() });
    assert.deepEqual(checks.filter((c) => c.level !== 'ok'), []);
    assert.ok(checks.some((c) => /key valid/.test(c.text)));
    rmSync(phone.dir, { recursive: true, force: true });
  });

  it('says what to do when termux-sms-send is missing, the key is wrong and the clock is off', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'cellgate-termux-bin-'));
    for (const command of ['termux-sms-list', 'termux-battery-status', 'termux-telephony-deviceinfo', 'termux-telephony-cellinfo']) symlinkSync(join(BIN, command), join(bin, command));
    const phone = fakePhone(bin);
    phone.inbox([]);
    const checks = await doctor({ baseUrl: world.baseUrl, key: 'cg_dev_unknownunknownunknownunknown12', env: phone.env });
    const failed = checks.filter((c) => c.level === 'FAIL').map((c) => c.text);
    assert.ok(failed.some((t) => /termux-sms-send not found on PATH: install the Termux:API app from F-Droid and run `pkg install termux-api`/.test(t)), failed.join('\n'));
    assert.ok(failed.some((t) => /device key was rejected \(401\)/.test(t)), failed.join('\n'));

    const { device } = await world.cell();
    const skewed = await doctor({ baseUrl: world.baseUrl, key: device.key, env: phone.env, now: () => new Date(world.t.clock.now().getTime() + 600_000) });
    assert.ok(skewed.some((c) => c.level === 'FAIL' && /clock is 600 s ahead/.test(c.text)));
    const unreachable = await doctor({ baseUrl: 'http://127.0.0.1:1', key: device.key, env: phone.env });
    assert.ok(unreachable.some((c) => c.level === 'FAIL' && /cannot reach http:\/\/127\.0\.0\.1:1/.test(c.text)));
    rmSync(bin, { recursive: true, force: true });
    rmSync(phone.dir, { recursive: true, force: true });
  });
});
