// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The SQLite file `cellgate` refuses to start on, each with one `cellgate:` line and exit status 1:
// a file or directory the user cannot write (it would start, answer /health ok, and fail every
// write), a second server on the same file, and paths that are no file on a disk. Root writes
// whatever the modes say, so under root the processes run without the capabilities that bypass
// file modes (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH): the refusal is the one a real
// read-only file gets, not a simulation. (Not as `nobody`: a checkout in a private directory, such
// as a CI clone under mktemp -d, is unreadable to it.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, SqliteFileError } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';

const MAIN = join(import.meta.dirname, '..', 'entry.mjs');
const asRoot = process.getuid?.() === 0;
const WITHOUT_DAC = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search'];
/** The command and its first arguments for a process that file modes apply to. */
const [COMMAND, ...PREFIX] = asRoot ? ['setpriv', ...WITHOUT_DAC, process.execPath] : [process.execPath];
const userName = asRoot ? /as user root/ : /as user \S+/;

function cellgate(args: string[], env: Record<string, string>) {
  return spawnSync(COMMAND, [...PREFIX, '--no-warnings', MAIN, ...args], {
    env: {
      PATH: process.env.PATH,
      CELLGATE_LOG_LEVEL: 'silent',
      CELLGATE_PORT: '0',
      ...env,
    },
    encoding: 'utf8',
    timeout: 40_000,
  });
}

/** Exit code 1, exactly one `cellgate:` line on stderr, and no stack trace. */
function refusedWith(result: ReturnType<typeof cellgate>, pattern: RegExp): string {
  assert.equal(result.status, 1, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.match(lines[0], /^cellgate: /);
  assert.match(lines[0], pattern);
  return lines[0];
}

describe('a database file the user cannot write', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cellgate-ro-'));
    chmodSync(dir, 0o777);
    file = join(dir, 'cellgate.db');
    // Created and migrated by that user, as a first start would.
    assert.equal(cellgate(['migrate'], { CELLGATE_DATABASE_URL: `sqlite:${file}` }).status, 0);
  });
  after(() => {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serve and migrate refuse a read-only file, naming it and the user', () => {
    chmodSync(file, 0o444);
    try {
      for (const command of ['serve', 'migrate']) {
        refusedWith(
          cellgate([command], { CELLGATE_DATABASE_URL: `sqlite:${file}` }),
          new RegExp(
            `^cellgate: cannot write the database file ${file} ${userName.source}: attempt to write a readonly database; give user`,
          ),
        );
      }
    } finally {
      chmodSync(file, 0o644);
    }
  });

  it('serve refuses a read-only directory (SQLite creates -wal and -shm beside the file)', () => {
    chmodSync(dir, 0o555);
    try {
      const line = refusedWith(
        cellgate(['serve'], { CELLGATE_DATABASE_URL: `sqlite:${file}` }),
        new RegExp(`^cellgate: cannot write in the directory ${dir} of the database file ${file} ${userName.source}`),
      );
      assert.doesNotMatch(line, /\bat \S+:\d+/);
      refusedWith(
        cellgate(['migrate'], { CELLGATE_DATABASE_URL: `sqlite:${file}` }),
        new RegExp(`^cellgate: cannot write in the directory ${dir} .*-wal`),
      );
    } finally {
      chmodSync(dir, 0o777);
    }
  });
});

describe('paths that are no database file', () => {
  for (const [path, pattern] of [
    [
      '/proc/cellgate.db',
      /^cellgate: the database path \/proc\/cellgate\.db is on \/proc, not a disk: set CELLGATE_DATABASE_URL/,
    ],
    ['/proc/self/fd/0', /is on \/proc, not a disk/],
    [tmpdir(), /^cellgate: the database path \S+ exists and is not a file/],
  ] as const) {
    it(`${path}: one line, not a hang or a stack trace`, () => {
      refusedWith(cellgate(['serve'], { CELLGATE_DATABASE_URL: `sqlite:${path}` }), pattern);
    });
  }
});

describe('one server per SQLite file', () => {
  let dir: string;
  let file: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cellgate-lock-'));
    file = join(dir, 'cellgate.db');
    const database = openDatabase(`sqlite:${file}`);
    await migrateToLatest(database);
    await database.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a second serve is refused with the first one's pid; after the first is killed, serve starts again", async () => {
    const env = {
      PATH: process.env.PATH,
      CELLGATE_LOG_LEVEL: 'silent',
      CELLGATE_PORT: '0',
      CELLGATE_DATABASE_URL: `sqlite:${file}`,
    };
    const first = spawn(process.execPath, ['--no-warnings', MAIN, 'serve'], {
      env: { ...env, CELLGATE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        first.stdout.on('data', (chunk: Buffer) => {
          out += chunk;
          if (out.includes('listening on')) resolve();
        });
        first.on('exit', (code) => reject(new Error(`first serve exited ${code}: ${out}`)));
      });
      assert.equal(readFileSync(`${file}.lock`, 'utf8'), `${first.pid}\n`);
      const second = spawnSync(process.execPath, ['--no-warnings', MAIN, 'serve'], {
        env,
        encoding: 'utf8',
        timeout: 40_000,
      });
      refusedWith(
        second,
        new RegExp(
          `^cellgate: ${file} is in use by another cellgate process \\(pid ${first.pid}\\); use PostgreSQL for several processes`,
        ),
      );
      // A short command shares the file through SQLite's own locking.
      const migrate = spawnSync(process.execPath, ['--no-warnings', MAIN, 'migrate'], {
        env,
        encoding: 'utf8',
        timeout: 40_000,
      });
      assert.equal(migrate.status, 0, migrate.stderr);
      assert.equal(migrate.stdout, 'database is up to date\n');
    } finally {
      first.kill('SIGKILL');
      await new Promise((resolve) =>
        first.exitCode === null && first.signalCode === null ? first.on('exit', resolve) : resolve(null),
      );
    }
    // kill -9 left the lock behind, with a pid that is gone: it is stale.
    assert.ok(existsSync(`${file}.lock`));
    const database = openDatabase(`sqlite:${file}`, { exclusive: true });
    assert.equal(readFileSync(`${file}.lock`, 'utf8'), `${process.pid}\n`);
    await database.close();
    assert.ok(!existsSync(`${file}.lock`), 'close() releases the lock');
  });

  it('a lock held by a live process is refused in-process too; a lock of this process is not', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${file}.lock`, `${holder.pid}\n`);
      assert.throws(
        () => openDatabase(`sqlite:${file}`, { exclusive: true }),
        (error: unknown) => error instanceof SqliteFileError && error.message.includes(`(pid ${holder.pid})`),
      );
      // Tests, migrate and admin open without exclusive: the lock is not theirs to check.
      const shared = openDatabase(`sqlite:${file}`);
      await shared.close();
      writeFileSync(`${file}.lock`, `${process.pid}\n`);
      const mine = openDatabase(`sqlite:${file}`, { exclusive: true });
      await mine.close();
    } finally {
      holder.kill('SIGKILL');
      rmSync(`${file}.lock`, { force: true });
    }
  });
});
