// `cellgate device run|doctor` (the Termux agent) against a listening app, with fake termux-*
// commands on PATH (test/fixtures/termux: they record their arguments and print what Termux:API prints).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin } from '../../test/harness.ts';
import { listeningWorld, Reports, type World } from '../../test/simulator/support.ts';
import { doctor, startAgent, type Agent, type AgentOptions } from './device-agent.ts';
import {
  eventually,
  fakePhone,
  TERMUX_BIN,
  TERMUX_FIXTURES,
  type FakePhone as Phone,
} from '../../test/support/cli-device.ts';
import { describeSim, simInfo } from './device-termux.ts';

/**
 * A TCP proxy in front of the app that can be shut (open sockets cut, new connections reset at
 * once) and opened again. It keeps its port the whole time: closing and listening again could
 * lose the port to another process on a busy machine.
 */
async function outageProxy(target: string) {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(url.port), url.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    shut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    open() {
      down = false;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}

describe('termux-telephony-deviceinfo', () => {
  it("is read in the format Termux:API prints, which has no field for the SIM's own number", () => {
    const printed = JSON.parse(readFileSync(join(TERMUX_FIXTURES, 'telephony-deviceinfo.json'), 'utf8'));
    // The keys TelephonyAPI.onReceiveTelephonyDeviceInfo (termux-api) writes, in its order.
    assert.deepEqual(Object.keys(printed), [
      'data_enabled',
      'data_activity',
      'data_state',
      'device_id',
      'device_software_version',
      'phone_count',
      'phone_type',
      'network_operator',
      'network_operator_name',
      'network_country_iso',
      'network_type',
      'network_roaming',
      'sim_country_iso',
      'sim_operator',
      'sim_operator_name',
      'sim_serial_number',
      'sim_subscriber_id',
      'sim_state',
    ]);
    const sim = simInfo(printed);
    assert.deepEqual(sim, { state: 'ready', operator: 'T-Mobile', networkType: 'lte', roaming: false, slots: 2 });
    assert.equal(describeSim(sim), 'SIM ready, T-Mobile, lte, 2 SIM slots');
    assert.equal(
      describeSim(simInfo({ sim_state: 'absent', network_roaming: true, phone_count: 1 })),
      'SIM absent, roaming',
    );
    assert.deepEqual(simInfo('not an object'), {
      state: null,
      operator: null,
      networkType: null,
      roaming: null,
      slots: null,
    });
  });
});

describe('cellgate device run (Termux) against a listening service', () => {
  let world: World;
  const agents: Agent[] = [];
  const dirs: string[] = [];
  before(async () => {
    world = await listeningWorld();
  });
  // Each agent reads its fake inbox every 100 ms, a process each time: left running, the agents of
  // earlier tests would load the machine for the later ones.
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.stop()));
  });
  after(async () => {
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
      // The phone's 2-8 s pause between sends is real time; the SendPacer test covers it.
      sendJitterMs: { min: 0, max: 0 },
      heartbeatIntervalMs: 60_000,
      logger: (line) => lines.push(line),
      now: () => world.t.clock.now(),
      onReport: reports.record,
      ...options,
    });
    agents.push(started);
    return {
      agent: started,
      lines,
      reports,
      logged: (pattern: RegExp) =>
        eventually(`a log line ${pattern}\n${lines.join('\n')}`, () => lines.some((l) => pattern.test(l))),
    };
  }

  async function inbound(cellId: string): Promise<{ body: string; from: string }[]> {
    const list = await world.t.app.inject({
      url: `/v1/cells/${cellId}/messages?direction=inbound`,
      headers: world.org.headers,
    });
    assert.equal(list.statusCode, 200);
    return list.json().messages;
  }

  it('sends through termux-sms-send -n <number> <text>, reports sent, and heartbeats the battery, signal and what it cannot do', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    const heartbeats: Record<string, unknown>[] = [];
    const recording: typeof fetch = (input, init) => {
      if (String(input).endsWith('/v1/device/heartbeat')) heartbeats.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    };
    const { reports } = await agent(phone, device.key, { fetch: recording });
    const id = await world.send(cellId, '+14155550150', 'Your code is 123456');
    await reports.until(id, 'sent');
    assert.deepEqual(
      phone.calls('termux-sms-send').map((c) => c.args),
      [['-n', '+14155550150', 'Your code is 123456']],
    );
    assert.equal((await world.message(cellId, id)).status, 'sent');
    const view = (await world.t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin })).json();
    assert.equal(view.battery_pct, 87);
    assert.equal(view.charging, true);
    assert.equal(view.signal_dbm, -71);
    assert.match(view.app_version, /^cellgate-termux\//);
    // termux-sms-send has no delivery callback and Termux:API no MMS: the heartbeat says so.
    const none = { delivery_reports: false, mms_send: false, mms_receive: false };
    assert.ok(heartbeats.length >= 1);
    for (const body of heartbeats) assert.deepEqual(body.capabilities, none);
    assert.deepEqual(view.capabilities, none);
    const cell = (await world.t.app.inject({ url: `/v1/cells/${cellId}`, headers: world.org.headers })).json();
    assert.deepEqual(cell.capabilities, none);
    // So a send with media is refused before it could reach the phone.
    const media = await world.t.app.inject({
      method: 'POST',
      url: `/v1/cells/${cellId}/messages/send`,
      headers: world.org.headers,
      payload: { to: '+14155550149', body: 'Photo', media_urls: ['https://example.com/a.jpg'] },
    });
    assert.equal(media.statusCode, 409);
    assert.equal(media.json().code, 'mms_unsupported');
  });

  it('logs the SIM at start and the number the service expects, which Termux:API cannot read', async () => {
    const { device } = await world.cell();
    const phone = fakePhone();
    const { logged } = await agent(phone, device.key);
    await logged(/\[device\] SIM ready, T-Mobile, lte, 2 SIM slots$/);
    await logged(/2 SIM slots: sending from the phone's default SIM \(--sim-slot N picks one\)/);
    await logged(
      new RegExp(
        `the service routes \\${device.phoneNumber} to this phone; Termux:API cannot read the SIM's own number`,
      ),
    );
  });

  it('picks the SIM slot on a dual-SIM phone (-s)', async () => {
    const { cellId, device } = await world.cell();
    const phone = fakePhone();
    const { reports } = await agent(phone, device.key, { simSlot: 1 });
    const id = await world.send(cellId, '+14155550151', 'From the second SIM');
    await reports.until(id, 'sent');
    assert.deepEqual(
      phone.calls('termux-sms-send').map((c) => c.args),
      [['-n', '+14155550151', '-s', '1', 'From the second SIM']],
    );
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
    phone.inbox([
      old,
      { id: 6, from: '+14155550160', body: 'six' },
      { id: 7, from: '+14155550161', body: 'seven' },
      { id: 8, from: '+14155550160', body: 'eight' },
    ]);
    await eventually('three inbound texts', async () => (await inbound(cellId)).length === 3);
    // A few more reads of the same inbox: none of them may upload a text again.
    const reads = phone.calls('termux-sms-list').length;
    await eventually('three more inbox reads', () => phone.calls('termux-sms-list').length >= reads + 3);
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
    const texts = [
      { id: 1, from: '+14155550163', body: 'old one' },
      { id: 2, from: '+14155550163', body: 'old two' },
    ];
    phone.inbox(texts);
    const { logged } = await agent(phone, device.key);
    await logged(/state\.json is corrupted/);
    await logged(/inbox: starting after text 2/);
    phone.inbox([...texts, { id: 3, from: '+14155550163', body: 'new' }]);
    await eventually('the new text', async () => (await inbound(cellId)).length === 1);
    assert.deepEqual(
      (await inbound(cellId)).map((m) => m.body),
      ['new'],
    );
    assert.deepEqual(JSON.parse(readFileSync(join(phone.dir, 'state', 'state.json'), 'utf8')).last_inbox_id, 3);
  });

  // Many steps, each a few fake termux-* processes: a loaded machine gets twice the usual limit.
  it(
    'rides out a service outage: reports and inbound texts wait in the outbox, nothing lost or repeated',
    { timeout: 120_000 },
    async () => {
      // Every step waits for a condition, never for a time: the send is held by the test (gate) until
      // the service is down, so its report meets the outage however slow the machine is.
      const { cellId, device } = await world.cell();
      const proxy = await outageProxy(world.baseUrl);
      const phone = fakePhone();
      phone.inbox([]);
      phone.set('send-mode', 'gate');
      const { agent: running, reports, logged, lines } = await agent(phone, device.key, { baseUrl: proxy.url });
      await logged(/inbox: starting after text 0/);
      const first = await world.send(cellId, '+14155550170', 'sent during the outage');
      await eventually('the send to start', () => phone.calls('termux-sms-send').length === 1);
      proxy.shut();
      phone.inbox([{ id: 1, from: '+14155550171', body: 'received during the outage' }]);
      phone.set('release', '');
      const second = await world.send(cellId, '+14155550172', 'queued during the outage');
      await eventually('the report and the text queued', () => running.outbox.size >= 2);
      await logged(/claim: network error/);
      // Backing off, not giving up: the queue is retried at least twice while the service is away.
      await eventually(
        'two retries of the queue',
        () => lines.filter((l) => /outbox: .*network error/.test(l)).length >= 2,
      );
      assert.deepEqual(reports.of(first), [], 'nothing reached the service during the outage');
      proxy.open();
      const withLog = (error: Error) => {
        throw new Error(`${error.message}\n${lines.join('\n')}`);
      };
      await reports.until(first, 'sent', 30_000).catch(withLog);
      await reports.until(second, 'sent', 30_000).catch(withLog);
      await eventually('the inbound text', async () => (await inbound(cellId)).length === 1);
      await eventually('an empty outbox', () => running.outbox.size === 0);
      assert.equal((await world.message(cellId, first)).status, 'sent');
      assert.equal((await world.message(cellId, second)).status, 'sent');
      assert.deepEqual(
        phone.calls('termux-sms-send').map((c) => c.args[1]),
        ['+14155550170', '+14155550172'],
      );
      assert.deepEqual(reports.of(first), ['sent']);
      assert.deepEqual(
        (await inbound(cellId)).map((m) => m.body),
        ['received during the outage'],
      );
      await running.stop();
      await proxy.close();
    },
  );

  it('stops with a clear message when its key is rotated (401)', async () => {
    const { device } = await world.cell();
    const phone = fakePhone();
    const { agent: running } = await agent(phone, device.key);
    const rotated = await world.t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${device.id}/rotate-key`,
      headers: admin,
    });
    assert.equal(rotated.statusCode, 200);
    await running.stopped;
    assert.match(String(running.fatal()?.message), /401 unauthenticated/);
    await assert.rejects(
      startAgent({
        baseUrl: world.baseUrl,
        key: device.key,
        stateDir: join(phone.dir, 'state'),
        env: phone.env,
        logger: () => {},
      }),
      /heartbeat: 401/,
    );
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
    const checks = await doctor({
      baseUrl: world.baseUrl,
      key: device.key,
      env: phone.env,
      now: () => world.t.clock.now(),
    });
    assert.deepEqual(
      checks.filter((c) => c.level !== 'ok'),
      [],
    );
    assert.ok(checks.some((c) => /key valid/.test(c.text)));
    assert.ok(checks.some((c) => c.text === 'SIM ready, T-Mobile, lte, 2 SIM slots'));
    assert.ok(
      checks.some((c) =>
        c.text.startsWith(
          `the service routes ${device.phoneNumber} to this phone; Termux:API cannot read the SIM's own number`,
        ),
      ),
    );
    // Checking the key is no heartbeat: with no agent running, the phone is not shown online.
    const read = await world.t.app.inject({ url: `/v1/admin/devices/${device.id}`, headers: admin });
    assert.deepEqual([read.json().online, read.json().last_seen_at], [false, null]);
    rmSync(phone.dir, { recursive: true, force: true });
  });

  it('says what to do when termux-sms-send is missing, the key is wrong and the clock is off', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'cellgate-termux-bin-'));
    for (const command of [
      'termux-sms-list',
      'termux-battery-status',
      'termux-telephony-deviceinfo',
      'termux-telephony-cellinfo',
    ])
      symlinkSync(join(TERMUX_BIN, command), join(bin, command));
    const phone = fakePhone(bin);
    phone.inbox([]);
    const checks = await doctor({
      baseUrl: world.baseUrl,
      key: 'cg_dev_unknownunknownunknownunknown12',
      env: phone.env,
    });
    const failed = checks.filter((c) => c.level === 'FAIL').map((c) => c.text);
    assert.ok(
      failed.some((t) =>
        /termux-sms-send not found on PATH: install the Termux:API app from F-Droid and run `pkg install termux-api`/.test(
          t,
        ),
      ),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => /device key was rejected \(401\)/.test(t)),
      failed.join('\n'),
    );

    const { device } = await world.cell();
    const skewed = await doctor({
      baseUrl: world.baseUrl,
      key: device.key,
      env: phone.env,
      now: () => new Date(world.t.clock.now().getTime() + 600_000),
    });
    assert.ok(skewed.some((c) => c.level === 'FAIL' && /clock is 600 s ahead/.test(c.text)));
    const noSim = fakePhone();
    noSim.inbox([]);
    noSim.set(
      'telephony-deviceinfo.json',
      `${JSON.stringify({ phone_count: 1, network_type: 'unknown', sim_state: 'absent' }, null, 2)}\n`,
    );
    const absent = await doctor({
      baseUrl: world.baseUrl,
      key: device.key,
      env: noSim.env,
      now: () => world.t.clock.now(),
    });
    assert.ok(
      absent.some((c) => c.level === 'FAIL' && /^SIM absent, unknown: insert a SIM that can send SMS/.test(c.text)),
      absent.map((c) => c.text).join('\n'),
    );
    rmSync(noSim.dir, { recursive: true, force: true });
    const unreachable = await doctor({ baseUrl: 'http://127.0.0.1:1', key: device.key, env: phone.env });
    assert.ok(unreachable.some((c) => c.level === 'FAIL' && /cannot reach http:\/\/127\.0\.0\.1:1/.test(c.text)));
    rmSync(bin, { recursive: true, force: true });
    rmSync(phone.dir, { recursive: true, force: true });
  });
});
