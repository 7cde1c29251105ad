// What the agent-side commands refuse, each as one `cellgate:` line and exit code 1: a missing key,
// a bad base URL or no service there, an API error (its code and detail), and a closed event
// stream (its close code and reason); a bad flag value is exit code 2, as a bad command line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../test/harness.ts';
import type { Line } from '../../test/support/messages.ts';
import { listeningLine, runCli, type CliResult } from '../../test/support/cli-agent.ts';

/** Exit code 1 (2 for a bad command line), exactly one `cellgate:` line on stderr, no stack trace, nothing on stdout. */
function refusedWith(result: CliResult, pattern: RegExp, status = 1): string {
  assert.equal(result.status, status, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('cellgate:'));
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
  assert.equal(result.stdout, '');
  assert.match(lines[0], pattern);
  return lines[0];
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const SEND = ['send', '--cell', 'cell_0000000000000000000000000a', '--to', '+14155550199', 'hello'];

describe('agent commands without a key or a service', () => {
  for (const args of [SEND, ['messages', 'ls', '--cell', 'cell_0a'], ['events', 'tail'], ['status']]) {
    it(`${args.slice(0, 2).join(' ')}: a missing key says to set CELLGATE_API_KEY or --key`, async () => {
      refusedWith(await runCli(args), /^cellgate: no API key: set CELLGATE_API_KEY or --key/);
    });
  }

  it('a base URL that is not a URL says so and asks whether the service runs', async () => {
    refusedWith(
      await runCli(['status'], { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_BASE_URL: 'localhost:8080' }),
      /^cellgate: the base URL "localhost:8080" \(CELLGATE_BASE_URL\) is not an http:\/\/ or https:\/\/ URL: is the service running at /,
    );
    refusedWith(
      await runCli(['status', '--key', 'cg_live_x', '--base-url', 'ftp://example.com']),
      /"ftp:\/\/example\.com" \(--base-url\) is not an http/,
    );
  });

  for (const args of [
    ['status'],
    ['events', 'tail'],
    ['device', 'simulate', '--key', 'cg_dev_x'],
    ['admin', 'create-token'],
    ['migrate'],
    ['serve'],
  ]) {
    it(`${args.slice(0, 2).join(' ')} with CELLGATE_HOST=999.1.1.1: one line naming it, no stack trace`, async () => {
      refusedWith(
        await runCli(args, { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_HOST: '999.1.1.1', CELLGATE_LOG_LEVEL: 'silent' }),
        /^cellgate: CELLGATE_HOST .*"999\.1\.1\.1"/,
      );
    });
  }

  it('a bad CELLGATE_PORT for an agent command: one line naming it', async () => {
    refusedWith(
      await runCli(['status'], { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_PORT: '99999' }),
      /^cellgate: CELLGATE_PORT "99999" is not a port/,
    );
  });

  for (const args of [SEND, ['messages', 'ls', '--cell', 'cell_0a'], ['events', 'tail'], ['status']]) {
    it(`${args.slice(0, 2).join(' ')}: no service at the base URL asks "is the service running at …?"`, async () => {
      const port = await closedPort();
      refusedWith(
        await runCli(args, { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_BASE_URL: `http://127.0.0.1:${port}` }),
        new RegExp(`ECONNREFUSED\\): is the service running at http://127\\.0\\.0\\.1:${port}\\?`),
      );
    });
  }

  it('a base URL where something other than Cellgate answers asks the same', async () => {
    const other = createServer((_request, response) =>
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    try {
      const env = { CELLGATE_API_KEY: 'cg_live_x', CELLGATE_BASE_URL: `http://127.0.0.1:${port}` };
      refusedWith(
        await runCli(['status'], env),
        /answered HTTP 404 text\/html, not the Cellgate API\): is the service running at http:\/\/127\.0\.0\.1:\d+\?/,
      );
      refusedWith(
        await runCli(['events', 'tail'], env),
        /the event stream answered HTTP 404 instead of a WebSocket\): is the service running at /,
      );
    } finally {
      other.close();
    }
  });
});

describe('bad flag values say which flag', () => {
  const env = { CELLGATE_API_KEY: 'cg_live_x' };
  const cases: [string[], RegExp][] = [
    [['send', '--to', '+14155550199', 'hi'], /^cellgate: --cell is required: a cell id/],
    [
      ['send', '--cell', 'abc', '--to', '+14155550199', 'hi'],
      /^cellgate: --cell "abc" is not a cell id \(cell_\.\.\.\)/,
    ],
    [['send', '--cell', 'cell_0a', '--to', 'bob', 'hi'], /^cellgate: --to "bob" is not a phone number/],
    [['send', '--cell', 'cell_0a', '--to', '+14155550199'], /^cellgate: the text to send is missing/],
    [
      ['send', '--cell', 'cell_0a', '--to', '+14155550199', '--wait', '--timeout', 'soon', 'hi'],
      /^cellgate: --timeout "soon" must be a whole number/,
    ],
    [
      ['send', '--cell', 'cell_0a', '--to', '+14155550199', '--colour', 'red', 'hi'],
      /^cellgate: Unknown option '--colour' \(cellgate send --help lists the options\)/,
    ],
    [
      ['messages', 'ls', '--cell', 'cell_0a', '--limit', '500'],
      /^cellgate: --limit "500" must be a whole number from 1 to 200/,
    ],
    [
      ['messages', 'ls', '--cell', 'cell_0a', '--direction', 'sideways'],
      /^cellgate: --direction "sideways" must be inbound or outbound/,
    ],
    [['messages', 'rm', '--cell', 'cell_0a'], /^cellgate: unknown action "rm": cellgate messages ls/],
    [['events', 'tail', '--types', 'message'], /^cellgate: --types "message" must be comma-separated event types/],
    [['events', 'tail', '--since', '42'], /^cellgate: --since "42" is not an event id/],
    [['status', '--verbose'], /^cellgate: Unknown option '--verbose'/],
  ];
  for (const [args, pattern] of cases) {
    it(args.join(' '), async () => {
      refusedWith(await runCli(args, env), pattern, 2);
    });
  }
});

describe('API errors print the problem code and detail', () => {
  let t: TestApp;
  let line: Line;
  let env: Record<string, string>;
  before(async () => {
    ({ t, line, env } = await listeningLine());
  });
  after(() => t?.close());

  it('an unknown cell: the 404 problem', async () => {
    refusedWith(
      await runCli(['messages', 'ls', '--cell', 'cell_00000000000000000000000000'], env),
      /^cellgate: not_found \(HTTP 404\): No such cell\./,
    );
  });

  it('a wrong key: the 401 problem', async () => {
    refusedWith(
      await runCli(['status'], { ...env, CELLGATE_API_KEY: 'cg_live_notakey0000000000000000' }),
      /^cellgate: \w+ \(HTTP 401\): \S+/,
    );
  });

  it('a number the API refuses: the 400 problem', async () => {
    refusedWith(
      await runCli(['send', '--cell', line.cell.id, '--to', '+999', 'hi'], env),
      /^cellgate: \w+ \(HTTP 4\d\d\): \S+/,
    );
  });

  it('events tail with a wrong key: the close code and reason', async () => {
    refusedWith(
      await runCli(['events', 'tail'], { ...env, CELLGATE_API_KEY: 'cg_live_notakey0000000000000000' }),
      /^cellgate: the event stream closed \(4401\): \S+/,
    );
  });

  it('events tail with an unknown type: the 4400 reason', async () => {
    refusedWith(
      await runCli(['events', 'tail', '--types', 'message.sen'], env),
      /^cellgate: the event stream closed \(4400\): Bad types filter/,
    );
  });
});
