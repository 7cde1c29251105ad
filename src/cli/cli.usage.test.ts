// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// Every command's command line goes through one parser (usage.ts): --help prints that command's
// usage and exits 0 (without reading the configuration or starting anything), and a bad flag is
// one `cellgate:` line with exit status 2. Checked in-process per command, plus a few spawned
// runs for what only the process entry shows (serve and migrate, exit statuses, no stack trace).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCommand } from './admin.ts';
import { agentCommand } from './agent-commands.ts';
import { AgentCliError, localBaseUrl, resolveTarget } from './agent-http.ts';
import { demoCommand } from './demo.ts';
import { deviceCommand } from './device-simulator.ts';
import { cliErrorOutcome, HelpRequest, parseCommandLine, UsageError } from './usage.ts';

const MAIN = join(import.meta.dirname, '..', 'entry.mjs');
const noConfig = () => {
  throw new Error('the configuration was read');
};

/** The command asked for help: its usage starts with `usage: cellgate <name>`. */
async function printsHelp(run: () => Promise<unknown>, usage: RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof HelpRequest, String(error));
    assert.match(error.usage, usage);
    assert.deepEqual(cliErrorOutcome(error), { stdout: `${error.usage}\n`, exitCode: 0 });
    return true;
  });
}

/** A bad command line: a UsageError that prints one line and exits 2. */
async function refusesFlag(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, pattern);
    const outcome = cliErrorOutcome(error);
    assert.equal(outcome?.exitCode, 2);
    assert.equal(outcome?.stderr?.split('\n').filter(Boolean).length, 1, 'one line');
    return true;
  });
}

describe('parseCommandLine', () => {
  const spec = {
    command: 'cellgate thing',
    usage: 'usage: cellgate thing [--name <n>]',
    options: { name: { type: 'string' }, loud: { type: 'boolean' } },
  } as const;

  it('answers the flags', () => {
    assert.deepEqual({ ...parseCommandLine(spec, ['--name', 'x', '--loud']).values }, { name: 'x', loud: true });
  });

  it('--help and -h win over a bad flag beside them; after -- they are text', () => {
    for (const args of [['--help'], ['-h'], ['--bogus', '--help']])
      assert.throws(() => parseCommandLine(spec, args), HelpRequest);
    assert.deepEqual(parseCommandLine({ ...spec, positionals: true }, ['--', '--help']).positionals, ['--help']);
  });

  for (const [args, message] of [
    [['--nmae', 'x'], /^Unknown option '--nmae' \(cellgate thing --help lists the options\)$/],
    [['--name'], /^Option '--name <value>' argument missing \(cellgate thing --help/],
    [['stray'], /^Unexpected argument 'stray'.* \(cellgate thing --help/],
    [['--loud=yes'], /^Option '--loud' does not take an argument \(cellgate thing --help/],
  ] as const) {
    it(`${args.join(' ')}: one UsageError line naming the flag`, () => {
      assert.throws(
        () => parseCommandLine(spec, [...args]),
        (error: unknown) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'),
      );
    });
  }

  it("a command's own failure (not the command line) exits 1", () => {
    assert.equal(cliErrorOutcome(new AgentCliError('no API key'))?.exitCode, 1);
    assert.equal(cliErrorOutcome(new Error('bug')), null);
  });
});

describe('--help of every command, without reading the configuration', () => {
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    ['admin --help', () => adminCommand(['--help'], noConfig), /^usage: cellgate admin create-token/],
    [
      'admin create-token --help',
      () => adminCommand(['create-token', '--help'], noConfig),
      /^usage: cellgate admin create-token[\s\S]*--label/,
    ],
    [
      'admin create-token -h --label x',
      () => adminCommand(['create-token', '-h', '--label', 'x'], noConfig),
      /^usage: cellgate admin/,
    ],
    [
      'device --help',
      () => deviceCommand(['--help'], 'http://127.0.0.1:1'),
      /^usage: cellgate device simulate[\s\S]*cellgate device run/,
    ],
    [
      'device simulate --help',
      () => deviceCommand(['simulate', '--help'], 'http://127.0.0.1:1'),
      /^usage: cellgate device simulate[\s\S]*--fail-rate/,
    ],
    [
      'device simulate --key cg_dev_x --help',
      () => deviceCommand(['simulate', '--key', 'cg_dev_x', '--help'], 'http://127.0.0.1:1'),
      /^usage: cellgate device simulate/,
    ],
    [
      'device run --help',
      () => deviceCommand(['run', '--help'], 'http://127.0.0.1:1'),
      /^usage: cellgate device run[\s\S]*\n  --sim-slot <N> +SIM slot to send from[\s\S]*\n  --state-dir <dir> +where[\s\S]*\n  --poll-wait <S> +seconds[\s\S]*\n  --inbox-interval <S> +seconds[\s\S]*\n  --command-timeout <S> +seconds/,
    ],
    [
      'device doctor --help',
      () => deviceCommand(['doctor', '--help'], 'http://127.0.0.1:1'),
      /^usage: cellgate device doctor --key[\s\S]*\n  --key <cg_dev_\.\.\.> +the phone's device key[\s\S]*\n  --base-url <url> +the service[\s\S]*\n  --command-timeout <S> +seconds/,
    ],
    ['demo --help', () => demoCommand(['--help'], () => assert.fail('the demo ran')), /^usage: cellgate demo/],
    ['send --help', () => agentCommand('send', ['--help']), /^usage: cellgate send[\s\S]*--base-url/],
    ['messages ls --help', () => agentCommand('messages', ['ls', '--help']), /^usage: cellgate messages ls/],
    ['events tail --help', () => agentCommand('events', ['tail', '--help']), /^usage: cellgate events tail/],
    ['status --help', () => agentCommand('status', ['--help']), /^usage: cellgate status/],
  ];
  for (const [name, run, usage] of cases) it(name, () => printsHelp(run, usage));
});

describe('a bad flag of every command', () => {
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    [
      'admin create-token --lable ops',
      () => adminCommand(['create-token', '--lable', 'ops'], noConfig),
      /^Unknown option '--lable' \(cellgate admin create-token --help/,
    ],
    [
      'admin create-token --label',
      () => adminCommand(['create-token', '--label'], noConfig),
      /--label <value>' argument missing/,
    ],
    ['admin', () => adminCommand([], noConfig), /^admin needs an action: the action is create-token/],
    ['admin rotate', () => adminCommand(['rotate'], noConfig), /^unknown admin action "rotate"/],
    [
      'device simulate --bogus',
      () => deviceCommand(['simulate', '--key', 'cg_dev_x', '--bogus'], 'http://127.0.0.1:1'),
      /^Unknown option '--bogus' \(cellgate device simulate --help/,
    ],
    [
      'device simulate without --key',
      () => deviceCommand(['simulate'], 'http://127.0.0.1:1'),
      /^--key must be a device key/,
    ],
    [
      'device run --bogus',
      () => deviceCommand(['run', '--key', 'cg_dev_x', '--bogus'], 'http://127.0.0.1:1'),
      /^Unknown option '--bogus' \(cellgate device run --help/,
    ],
    [
      'device doctor --sim-slot 1 (run only)',
      () => deviceCommand(['doctor', '--key', 'cg_dev_x', '--sim-slot', '1'], 'http://127.0.0.1:1'),
      /^Unknown option '--sim-slot' \(cellgate device doctor --help/,
    ],
    [
      'device reboot',
      () => deviceCommand(['reboot'], 'http://127.0.0.1:1'),
      /^unknown device action "reboot": the actions are simulate, run and doctor/,
    ],
    [
      'demo --postgres',
      () => demoCommand(['--postgres'], () => {}),
      /^Unknown option '--postgres' \(cellgate demo --help/,
    ],
    [
      'send --colour red',
      () => agentCommand('send', ['--colour', 'red']),
      /^Unknown option '--colour' \(cellgate send --help/,
    ],
    ['send without --cell', () => agentCommand('send', ['--to', '+14155550123', 'hi']), /^--cell is required/],
    [
      'messages ls --limit 0',
      () => agentCommand('messages', ['ls', '--cell', 'cell_0a', '--limit', '0']),
      /^--limit "0" must be a whole number/,
    ],
    [
      'events tail --since 42',
      () => agentCommand('events', ['tail', '--since', '42']),
      /^--since "42" is not an event id/,
    ],
    [
      'status --verbose',
      () => agentCommand('status', ['--verbose']),
      /^Unknown option '--verbose' \(cellgate status --help/,
    ],
  ];
  for (const [name, run, pattern] of cases) it(name, () => refusesFlag(run, pattern));
});

describe('where the CLI and the simulator find the service', () => {
  it('CELLGATE_BASE_URL, else CELLGATE_HOST and CELLGATE_PORT (on loopback for every-address hosts), else 127.0.0.1:8080', () => {
    assert.equal(localBaseUrl({}).url, 'http://127.0.0.1:8080');
    assert.equal(localBaseUrl({ CELLGATE_PORT: '9090' }).url, 'http://127.0.0.1:9090');
    assert.equal(localBaseUrl({ CELLGATE_HOST: '0.0.0.0', CELLGATE_PORT: '9090' }).url, 'http://127.0.0.1:9090');
    assert.equal(localBaseUrl({ CELLGATE_HOST: '::' }).url, 'http://[::1]:8080');
    assert.equal(localBaseUrl({ CELLGATE_HOST: '10.0.0.5', CELLGATE_PORT: '9090' }).url, 'http://10.0.0.5:9090');
    assert.equal(
      localBaseUrl({ CELLGATE_BASE_URL: 'https://cg.example', CELLGATE_PORT: '9090' }).url,
      'https://cg.example',
    );
    assert.equal(
      resolveTarget({}, { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_PORT: '9191' }).baseUrl,
      'http://127.0.0.1:9191',
    );
  });

  it('device simulate with no service there: the agent commands\' line, not "fetch failed"', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    await assert.rejects(
      deviceCommand(['simulate', '--key', 'cg_dev_x'], `http://127.0.0.1:${port}`),
      (error: unknown) => {
        assert.ok(error instanceof AgentCliError && !(error instanceof UsageError), String(error));
        assert.equal(
          error.message,
          `cannot reach Cellgate at http://127.0.0.1:${port} (ECONNREFUSED): is the service running at http://127.0.0.1:${port}? Start it (cellgate serve) or set CELLGATE_BASE_URL or --base-url`,
        );
        assert.equal(cliErrorOutcome(error)?.exitCode, 1);
        return true;
      },
    );
  });
});

describe('the process entry', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['--no-warnings', MAIN, ...args], {
      env: { PATH: process.env.PATH, CELLGATE_LOG_LEVEL: 'silent', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('serve --help and migrate --help print their usage and exit 0, touching no database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-help-'));
    try {
      const env = { CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, CELLGATE_PORT: 'not-a-port' };
      for (const command of ['serve', 'migrate']) {
        const result = run([command, '--help'], env);
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, new RegExp(`^usage: cellgate ${command}\\n`));
        assert.equal(result.stderr, '');
      }
      assert.ok(!existsSync(join(dir, 'db.sqlite')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a mistyped flag is one cellgate: line, exit 2, no stack trace', () => {
    const result = run(['admin', 'create-token', '--lable', 'ops']);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(
      result.stderr,
      "cellgate: Unknown option '--lable' (cellgate admin create-token --help lists the options)\n",
    );
    assert.equal(result.stdout, '');
  });
});
