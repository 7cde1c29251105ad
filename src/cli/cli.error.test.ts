// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// What stops `cellgate`: an unknown command or option (exit code 2), a taken port, an unreachable
// database (exit code 1). Each is one stderr line that says what to do, and no stack trace unless
// CELLGATE_LOG_LEVEL=debug.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '..', 'entry.mjs');

function cellgate(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--no-deprecation', '--no-warnings', MAIN, ...args], {
    env: { PATH: process.env.PATH, CELLGATE_LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 50_000,
  });
}

/** Exit code 1 (2 for a bad command line), exactly one `cellgate:` line on stderr, and no stack trace. */
function refusedWith(result: ReturnType<typeof cellgate>, pattern: RegExp, status = 1): string {
  assert.equal(result.status, status, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('cellgate:'));
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
  assert.match(lines[0], pattern);
  return lines[0];
}

describe('unknown commands and options', () => {
  it('says which command is unknown and lists the commands', () => {
    const line = refusedWith(cellgate(['sned']), /^cellgate: unknown command "sned"/, 2);
    for (const command of ['serve', 'migrate', 'admin', 'device', 'demo']) assert.ok(line.includes(command), command);
    assert.match(line, /--help/);
  });

  it('says which option is unknown', () => {
    refusedWith(cellgate(['--verbose']), /^cellgate: unknown option "--verbose"; the commands are serve, migrate/, 2);
  });
});

describe('start-up failures', () => {
  let dir: string;
  let taken: Server;
  let port: number;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cellgate-start-'));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  after(() => {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sqlite = () => ({ CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` });

  it('a taken port stops the process with one line naming the port and CELLGATE_PORT', () => {
    refusedWith(
      cellgate(['serve'], { ...sqlite(), CELLGATE_PORT: String(port) }),
      new RegExp(`^cellgate: port ${port} is already in use on 127\\.0\\.0\\.1: .*CELLGATE_PORT`),
    );
  });

  it('an unreachable database stops the process with one line naming it, password hidden', () => {
    const result = cellgate(['serve'], {
      CELLGATE_DATABASE_URL: 'postgres://cellgate:hunter2secret@127.0.0.1:1/x',
      CELLGATE_PORT: '0',
    });
    refusedWith(
      result,
      /^cellgate: cannot reach the database at postgres:\/\/cellgate:\*\*\*@127\.0\.0\.1:1\/x .*CELLGATE_DATABASE_URL/,
    );
    assert.doesNotMatch(result.stderr, /hunter2secret/);
  });

  it('migrate says the same of an unreachable database', () => {
    refusedWith(
      cellgate(['migrate'], { CELLGATE_DATABASE_URL: 'postgres://127.0.0.1:1/x' }),
      /^cellgate: cannot reach the database at postgres:\/\/127\.0\.0\.1:1\/x /,
    );
  });

  it('CELLGATE_LOG_LEVEL=debug adds the stack trace of the cause', () => {
    const result = cellgate(['serve'], {
      CELLGATE_DATABASE_URL: 'postgres://127.0.0.1:1/x',
      CELLGATE_PORT: '0',
      CELLGATE_LOG_LEVEL: 'debug',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^cellgate: cannot reach the database/m);
    assert.match(result.stderr, /ECONNREFUSED[\s\S]*^\s+at /m);
  });
});
