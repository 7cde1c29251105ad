// GET /v1/device/agent.mjs: the single-file device agent, fetched over HTTP like `curl` on a phone
// and run as a real child process with the fake termux-* commands on PATH.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { listeningWorld, type World } from '../../../test/simulator/support.ts';
import { eventually, fakePhone, type FakePhone } from '../../../test/support/cli-device.ts';
import { AGENT_VERSION } from '../../cli/device-termux.ts';
import { AgentBundle } from './agent-bundle.ts';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node agent.mjs <args>` to its end. */
async function runAgent(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [file, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number | null; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The import specifiers of an ES module's text: static imports, re-exports, import() and require(). */
function specifiers(code: string): string[] {
  const found = new Set<string>();
  for (const pattern of [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ]) {
    for (const match of code.matchAll(pattern)) found.add(match[1]);
  }
  return [...found];
}

describe('GET /v1/device/agent.mjs', () => {
  let world: World;
  let dir: string;
  let file: string;
  let download: Response;
  let code: string;
  const phones: FakePhone[] = [];
  const children: ChildProcess[] = [];

  before(async () => {
    world = await listeningWorld();
    dir = mkdtempSync(join(tmpdir(), 'cellgate-agent-'));
    file = join(dir, 'agent.mjs');
    // Over the socket, with no credential: what `curl -fsSLO` does on the phone.
    download = await fetch(`${world.baseUrl}/v1/device/agent.mjs`);
    code = await download.text();
    writeFileSync(file, code);
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await world.close();
    for (const path of [dir, ...phones.map((p) => p.dir)]) rmSync(path, { recursive: true, force: true });
  });

  const phone = () => {
    const made = fakePhone();
    phones.push(made);
    made.inbox([]);
    return made;
  };

  it('answers a JavaScript module with an ETag and a cache lifetime, without a key', async () => {
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(download.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
    const etag = download.headers.get('etag') ?? '';
    assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
    const again = await fetch(`${world.baseUrl}/v1/device/agent.mjs`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('etag'), etag);
    const changed = await world.t.app.inject({
      url: '/v1/device/agent.mjs',
      headers: { 'if-none-match': '"something-older"' },
    });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.body, code);
  });

  it('is self-contained: it imports node: builtins only, bundled from agent code only', async () => {
    const imported = specifiers(code);
    assert.ok(imported.includes('node:child_process') && imported.includes('node:fs'), imported.join(', '));
    assert.deepEqual(
      imported.filter((specifier) => !specifier.startsWith('node:')),
      [],
    );
    const { inputs } = await new AgentBundle().get();
    assert.ok(
      inputs.includes('src/cli/device-agent-entry.ts') && inputs.includes('src/cli/device-driver.ts'),
      inputs.join(', '),
    );
    assert.deepEqual(
      inputs.filter((input) => !/^src\/cli\/(device-(agent|agent-entry|driver|state|termux)|usage)\.ts$/.test(input)),
      [],
      'only agent code is bundled',
    );
  });

  it('prints its version and its help, and refuses a command line without a key', async () => {
    const version = await runAgent(file, ['--version'], {});
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `${AGENT_VERSION} (node ${process.versions.node})\n`);
    const help = await runAgent(file, ['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: node agent\.mjs run --key <cg_dev_\.\.\.> --base-url https:\/\/\.\.\./);
    assert.match(help.stdout, /--sim-slot <N>/);
    const bare = await runAgent(file, ['run', '--base-url', world.baseUrl], {});
    // A bad command line is exit status 2, as for every cellgate command (1 is a rejected key).
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^cellgate: --key must be a device key \(cg_dev_\.\.\./);
  });

  it('runs doctor on a ready phone', async () => {
    const { device } = await world.cell();
    const ready = phone();
    const outcome = await runAgent(file, ['doctor', '--key', device.key, '--base-url', world.baseUrl], ready.env);
    const checks = outcome.stdout.split('\n').filter((line) => /^(ok|warn|FAIL)/.test(line));
    // The service runs on the test's clock, the child on the machine's: only the clock check may differ.
    const clock = checks.filter((line) => /clock/.test(line));
    const others = checks.filter((line) => !/clock/.test(line));
    assert.equal(clock.length, 1, outcome.stdout);
    assert.deepEqual(
      others.filter((line) => !line.startsWith('ok ')),
      [],
      outcome.stdout + outcome.stderr,
    );
    assert.ok(
      others.some((line) => /^ok {4}key valid: device dev_/.test(line)),
      outcome.stdout,
    );
    assert.ok(
      others.some((line) => line === 'ok    SIM ready, T-Mobile, lte, 2 SIM slots'),
      outcome.stdout,
    );
    assert.equal(outcome.code, clock[0].startsWith('FAIL') ? 1 : 0);
  });

  it('runs a phone end to end: sends a claimed text and uploads a received one, then stops on SIGTERM', async () => {
    const { cellId, device } = await world.cell();
    const running = phone();
    const lines: string[] = [];
    const child = spawn(
      process.execPath,
      [
        file,
        'run',
        '--key',
        device.key,
        '--base-url',
        world.baseUrl,
        '--state-dir',
        join(running.dir, 'state'),
        '--poll-wait',
        '1',
        '--inbox-interval',
        '1',
        '--command-timeout',
        '10',
      ],
      { env: { ...running.env, HOME: running.dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    const exited = new Promise<number | null>((done) => child.on('exit', (status) => done(status)));
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const logged = (pattern: RegExp) =>
      eventually(`a log line ${pattern}\n${lines.join('\n')}`, () => lines.some((line) => pattern.test(line)));

    await logged(/inbox: starting after text 0/);
    const id = await world.send(cellId, '+14155550180', 'From the single file');
    await eventually(
      `${id} sent\n${lines.join('\n')}`,
      async () => (await world.message(cellId, id)).status === 'sent',
    );
    assert.deepEqual(
      running.calls('termux-sms-send').map((c) => c.args),
      [['-n', '+14155550180', 'From the single file']],
    );

    running.inbox([{ id: 1, from: '+14155550181', body: 'Reply to the single file' }]);
    const inbound = async () =>
      (
        await world.t.app.inject({ url: `/v1/cells/${cellId}/messages?direction=inbound`, headers: world.org.headers })
      ).json().messages;
    await eventually(`the inbound text\n${lines.join('\n')}`, async () => (await inbound()).length === 1);
    assert.equal((await inbound())[0].body, 'Reply to the single file');

    child.kill('SIGTERM');
    assert.equal(await exited, 0, lines.join('\n'));
    assert.ok(
      lines.some((line) => /stopped: .*sent=1/.test(line)),
      lines.join('\n'),
    );
  });
});
