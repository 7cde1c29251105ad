// isDatabaseUnavailable on the errors the drivers really raise: a refused or dropped connection, a
// pool checkout that timed out, a terminated backend (57P01), SQLite's "database is locked" — and
// not on the errors that are bugs or business rules (unique violations, syntax errors).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from './database.ts';
import { isDatabaseUnavailable, isUniqueViolation } from './errors.ts';

const postgresUrl = process.env.CELLGATE_TEST_DATABASE_URL?.startsWith('postgres')
  ? process.env.CELLGATE_TEST_DATABASE_URL
  : undefined;

/** What `run` rejects with (fails the test if it resolves). */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

/** A TCP server on loopback that treats each connection with `onConnection`; its port. */
async function tcpServer(
  onConnection: (socket: Socket) => void,
): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server, sockets };
}

async function closeServer(s: { server: Server; sockets: Set<Socket> }): Promise<void> {
  for (const socket of s.sockets) socket.destroy();
  await new Promise((resolve) => s.server.close(resolve));
}

describe('isDatabaseUnavailable on PostgreSQL driver errors', () => {
  it('counts a refused connection (nothing listens on the port), as Kysely reports it', async () => {
    const nothing = await tcpServer(() => {});
    await closeServer(nothing); // the port is free again: connecting is refused
    const database = openDatabase(`postgres://postgres@127.0.0.1:${nothing.port}/none`);
    try {
      const error = await rejection(() => sql`select 1`.execute(database.db));
      assert.equal((error as { code?: string }).code, 'ECONNREFUSED');
      assert.equal(isDatabaseUnavailable(error), true);
    } finally {
      await database.close();
    }
  });

  it('counts a connection the server drops ("Connection terminated unexpectedly")', async () => {
    const dropping = await tcpServer((socket) => socket.destroy());
    const database = openDatabase(`postgres://postgres@127.0.0.1:${dropping.port}/none`);
    try {
      const error = await rejection(() => sql`select 1`.execute(database.db));
      assert.match(String(error), /Connection terminated/);
      assert.equal(isDatabaseUnavailable(error), true);
    } finally {
      await database.close();
      await closeServer(dropping);
    }
  });

  it('counts pool checkout timeouts: a connection that never answers, and a wait for a free client', async () => {
    const silent = await tcpServer(() => {});
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: silent.port,
      user: 'postgres',
      database: 'none',
      max: 1,
      connectionTimeoutMillis: 50,
    });
    pool.on('error', () => {});
    try {
      const [connecting, waiting] = await Promise.all([
        rejection(() => pool.connect()),
        rejection(() => pool.connect()),
      ]);
      const messages = [String(connecting), String(waiting)].sort();
      assert.match(messages.join(' | '), /Connection terminated due to connection timeout/);
      assert.match(messages.join(' | '), /timeout exceeded when trying to connect/);
      assert.equal(isDatabaseUnavailable(connecting), true);
      assert.equal(isDatabaseUnavailable(waiting), true);
    } finally {
      await pool.end();
      await closeServer(silent);
    }
  });

  it('counts the server-side codes of a lost or refused session (57P01-57P03, class 08, 53300), not other SQLSTATEs', () => {
    const error = (code: string) => Object.assign(new pg.DatabaseError('server error', 0, 'error'), { code });
    for (const code of ['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08P01', '53300']) {
      assert.equal(isDatabaseUnavailable(error(code)), true, code);
    }
    for (const code of ['23505', '23503', '42601', '42P01', '40001', '40P01', '57014', '22P02']) {
      assert.equal(isDatabaseUnavailable(error(code)), false, code);
    }
  });

  it("looks into AggregateError members (a refused dual-stack connect), not into a failed fetch's cause", async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    assert.equal(isDatabaseUnavailable(new AggregateError([refused], 'all attempts failed')), true);
    // HTTP egress (webhooks, facilitators) failing is not the database being unreachable.
    const nothing = await tcpServer(() => {});
    await closeServer(nothing);
    const fetchFailed = await rejection(() => fetch(`http://127.0.0.1:${nothing.port}/`));
    assert.equal(((fetchFailed as Error).cause as { code?: string }).code, 'ECONNREFUSED');
    assert.equal(isDatabaseUnavailable(fetchFailed), false);
  });

  it("does not count the client hanging up mid-body (Node's aborted error: ECONNRESET with status 400)", () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    assert.equal(isDatabaseUnavailable(aborted), false);
  });

  it('counts nothing that is not an error of the database connection', () => {
    for (const value of [
      null,
      undefined,
      'ECONNREFUSED',
      42,
      {},
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      new RangeError('Invalid time value'),
    ]) {
      assert.equal(isDatabaseUnavailable(value), false, String(value));
    }
  });
});

describe(
  'isDatabaseUnavailable on a real PostgreSQL server',
  { skip: postgresUrl ? false : 'needs PostgreSQL (CELLGATE_TEST_POSTGRES_URL)' },
  () => {
    let admin: pg.Client;
    before(async () => {
      admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
    });
    after(() => admin.end());

    it('counts a terminated backend (57P01) and the "not queryable" error of the next query on that client', async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      // The server's FATAL 57P01 and the socket's close race: pg may emit either first, or both.
      const errors: Error[] = [];
      const lost = new Promise<void>((resolve) =>
        client.on('error', (error) => {
          errors.push(error);
          resolve();
        }),
      );
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      await lost;
      for (const error of errors) {
        assert.ok(
          (error as { code?: string }).code === '57P01' || /Connection terminated/.test(error.message),
          String(error),
        );
        assert.equal(isDatabaseUnavailable(error), true, String(error));
      }
      const next = await rejection(() => client.query('select 1'));
      assert.equal(isDatabaseUnavailable(next), true, String(next));
      await client.end().catch(() => {});
    });

    it('does not count a unique violation or a syntax error', async () => {
      await admin.query('create temporary table unavailable_probe (id int primary key)');
      await admin.query('insert into unavailable_probe values (1)');
      const duplicate = await rejection(() => admin.query('insert into unavailable_probe values (1)'));
      assert.equal(isUniqueViolation(duplicate), true);
      assert.equal(isDatabaseUnavailable(duplicate), false);
      assert.equal(isDatabaseUnavailable(await rejection(() => admin.query('selec 1'))), false);
    });
  },
);

describe('isDatabaseUnavailable on node:sqlite errors', () => {
  let dir: string;
  let holder: DatabaseSync;
  let other: DatabaseSync;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cellgate-errors-'));
    holder = new DatabaseSync(join(dir, 'x.db'));
    holder.exec('PRAGMA journal_mode = WAL; create table t (id integer primary key)');
    other = new DatabaseSync(join(dir, 'x.db'));
    other.exec('PRAGMA busy_timeout = 0');
  });
  after(() => {
    other.close();
    holder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts SQLITE_BUSY ("database is locked") once the busy timeout has passed', () => {
    holder.exec('BEGIN IMMEDIATE');
    try {
      const error = (() => {
        try {
          other.exec('insert into t values (1)');
        } catch (caught) {
          return caught;
        }
        assert.fail('expected SQLITE_BUSY');
      })();
      assert.equal((error as { errcode?: number }).errcode, 5);
      assert.equal(isDatabaseUnavailable(error), true);
    } finally {
      holder.exec('ROLLBACK');
    }
  });

  it('does not count a unique violation or a syntax error', () => {
    holder.exec('insert into t values (7)');
    const errorOf = (statement: string) => {
      try {
        holder.exec(statement);
      } catch (caught) {
        return caught;
      }
      assert.fail(`expected ${statement} to fail`);
    };
    const duplicate = errorOf('insert into t values (7)');
    assert.equal(isUniqueViolation(duplicate), true);
    assert.equal(isDatabaseUnavailable(duplicate), false);
    assert.equal(isDatabaseUnavailable(errorOf('selec 1')), false);
  });
});
