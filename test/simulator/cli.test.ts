import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { listeningWorld, type World } from './support.ts';

const MAIN = resolve(import.meta.dirname, '../../src/entry.mjs');

/** `cellgate device simulate ...` as a child process; its output so far, and a wait for a line. */
function simulate(args: string[]) {
  const child = spawn(process.execPath, [MAIN, 'device', 'simulate', ...args], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners: (() => void)[] = [];
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    listeners.forEach((l) => l());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return {
    child,
    output: () => output,
    /** Resolves when the output matches `pattern`; rejects after `ms` of real time. */
    waitFor(pattern: RegExp, ms = 30_000): Promise<void> {
      return new Promise((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no ${pattern} within ${ms} ms in:\n${output}`)), ms);
        const check = () => {
          if (!pattern.test(output)) return;
          clearTimeout(timer);
          done();
        };
        listeners.push(check);
        check();
      });
    },
  };
}

async function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = await once(child, 'exit');
  return code as number | null;
}

describe('cellgate device simulate (the command)', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('uploads the inbound text it was given, delivers a sent message, logs each step and exits 0 on SIGINT', async () => {
    const { cellId, device } = await world.cell();
    const run = simulate([
      '--key',
      device.key,
      '--base-url',
      world.baseUrl,
      '--poll-wait',
      '1',
      '--delivery-delay-ms',
      '0',
      '--inbound-from',
      '+14155550150',
      '--inbound-text',
      'hello from the command line',
    ]);
    try {
      await run.waitFor(/received from \+14155550150: msg_\w+ \(201\)/);
      const inbound = await world.t.app.inject({
        url: `/v1/cells/${cellId}/messages?direction=inbound`,
        headers: world.org.headers,
      });
      assert.equal(inbound.json().messages[0].body, 'hello from the command line');

      const id = await world.send(cellId, '+14155550151', 'to the command line phone');
      await run.waitFor(new RegExp(`${id} delivered`));
      assert.match(run.output(), new RegExp(`claimed ${id} to \\+14155550151 \\(lease until `));
      assert.match(run.output(), new RegExp(`${id} sent to \\+14155550151`));
      assert.equal((await world.message(cellId, id)).status, 'delivered');

      run.child.kill('SIGINT');
      assert.equal(await exitCode(run.child), 0);
      assert.match(run.output(), /stopped: heartbeats=1 .*delivered=1 .*inbound=1/);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('drives several phones with repeated --key: a text from one to the number of another arrives there as inbound', async () => {
    const a = await world.cell();
    const b = await world.cell();
    const run = simulate([
      '--key',
      a.device.key,
      '--key',
      b.device.key,
      '--base-url',
      world.baseUrl,
      '--poll-wait',
      '1',
      '--delivery-delay-ms',
      '0',
    ]);
    try {
      await run.waitFor(new RegExp(`\\[\\${b.phoneNumber}\\] online as`));
      const id = await world.send(a.cellId, b.phoneNumber, 'from one simulated phone to the other');
      await run.waitFor(new RegExp(`${id} delivered`));
      await run.waitFor(new RegExp(`received from \\${a.phoneNumber}: msg_\\w+ \\(201\\)`));
      const inbound = await world.t.app.inject({
        url: `/v1/cells/${b.cellId}/messages?direction=inbound`,
        headers: world.org.headers,
      });
      assert.deepEqual(
        inbound.json().messages.map((m: { from: string; body: string }) => [m.from, m.body]),
        [[a.phoneNumber, 'from one simulated phone to the other']],
      );
      run.child.kill('SIGINT');
      assert.equal(await exitCode(run.child), 0);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('exits 1 with the reason when the key is not accepted', async () => {
    const run = simulate(['--key', 'cg_dev_UnknownKey0123456789abcdefghij', '--base-url', world.baseUrl]);
    assert.equal(await exitCode(run.child), 1);
    assert.match(run.output(), /cellgate: heartbeat: 401 unauthenticated The device key is unknown or was rotated\./);
  });

  it('exits 1 with the reason when the inbound text it was given is refused', async () => {
    const { device } = await world.cell();
    const run = simulate([
      '--key',
      device.key,
      '--base-url',
      world.baseUrl,
      '--poll-wait',
      '1',
      '--inbound-from',
      '12345',
      '--inbound-text',
      'hi',
    ]);
    assert.equal(await exitCode(run.child), 1);
    assert.match(run.output(), /cellgate: inbound from 12345: 400 invalid_request from must be a valid phone number/);
    assert.match(run.output(), /stopped: /);
  });

  it('exits 2 with the usage when the command line is wrong', async () => {
    const run = simulate(['--key', 'cg_dev_x', '--fail-rate', '2']);
    assert.equal(await exitCode(run.child), 2);
    assert.match(run.output(), /cellgate: --fail-rate must be a number from 0 to 1/);
  });
});
