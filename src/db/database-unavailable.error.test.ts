// The database going away under a running app: every request answers 503 `unavailable` with
// Retry-After (never 500) while it is gone, and the app recovers by itself once it is back.
// PostgreSQL: the app reaches the server through a TCP proxy the test takes down (every connection
// cut, new ones refused) and brings back; the LISTEN connection is re-opened and the stream goes
// on without a gap. SQLite: another connection holds the write lock past the busy timeout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { openDatabase, type Database } from './database.ts';
import { activeLine, send, type Line } from '../../test/support/messages.ts';
import { expectProblem, freshDatabase, startApp, type TestApp, type TestDatabase } from '../../test/harness.ts';
import { eventually, rejected, StreamClient, streamUrl } from '../../test/support/stream-client.ts';

const runUrl = process.env.CELLGATE_TEST_DATABASE_URL ?? '';
const postgres = /^postgres(ql)?:/.test(runUrl);

/** A TCP proxy to `target` on a fixed loopback port: down() cuts every connection and refuses new ones. */
class Proxy {
  private readonly target: { host: string; port: number };
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  }
}

function expectUnavailable(response: Parameters<typeof expectProblem>[0]) {
  const body = expectProblem(response, 503, 'unavailable');
  assert.ok(Number(response.headers['retry-after']) >= 1, `Retry-After ${String(response.headers['retry-after'])}`);
  return body;
}

describe(
  'PostgreSQL unreachable, then back',
  { skip: postgres ? false : 'needs PostgreSQL (CELLGATE_TEST_POSTGRES_URL)' },
  () => {
    let testDb: TestDatabase;
    let proxy: Proxy;
    let proxied: Database;
    let t: TestApp;
    let line: Line;

    before(async () => {
      testDb = await freshDatabase();
      const direct = new URL(testDb.url);
      proxy = new Proxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      await proxy.up();
      const viaProxy = new URL(testDb.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      proxied = openDatabase(viaProxy.toString());
      // The safety-net poll is a minute: within the test's waits only NOTIFY (or a reconnect's wake) delivers.
      t = await startApp({ deps: { database: proxied, eventsPollMs: 60_000 } });
      line = await activeLine(t);
    });

    after(async () => {
      await t?.close();
      await proxied?.close();
      await proxy?.down();
      await testDb?.drop();
    });

    it('answers 503 unavailable with Retry-After while the server is gone, then recovers by itself with the stream intact', async () => {
      const stream = await StreamClient.ready(await streamUrl(t), { headers: line.org.headers });
      const rename = (name: string) =>
        t.app.inject({
          method: 'PATCH',
          url: `/v1/cells/${line.cell.id}`,
          headers: line.org.headers,
          payload: { display_name: name },
        });
      assert.equal((await rename('before')).statusCode, 200);
      await stream.eventCount(1, 1000);
      const listenerBefore = t.services.events.listenerBackendPid;
      assert.ok(listenerBefore);

      await proxy.down();
      expectUnavailable(await send(t, line, { to: '+14155550142', body: 'while down' }));
      expectUnavailable(await rename('while down'));
      expectUnavailable(await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers }));
      const health = expectUnavailable(await t.app.inject({ url: '/health' }));
      assert.equal(health.database, 'unreachable');
      const refused = await rejected(`${await streamUrl(t)}?since=${stream.events[0].id}`, {
        headers: line.org.headers,
      });
      assert.equal(
        refused.code,
        1013,
        `a stream opened during the outage is told to try again later: ${refused.reason}`,
      );
      await eventually(
        () => t.services.events.listenerBackendPid === null,
        'the listener to notice the lost connection',
      );

      await proxy.up();
      let accepted: Awaited<ReturnType<typeof send>> | undefined;
      await eventually(
        async () => {
          accepted = await send(t, line, { to: '+14155550142', body: 'after' });
          if (accepted.statusCode !== 202) expectUnavailable(accepted);
          return accepted.statusCode === 202;
        },
        'a send to be accepted again',
        10_000,
      );
      assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
      const stored = await testDb.database.db
        .selectFrom('messages')
        .select('body')
        .where('id', '=', accepted!.json().id)
        .executeTakeFirst();
      assert.equal(stored?.body, 'after');

      // The LISTEN connection is back (a new session), and NOTIFY wakes the stream again.
      await eventually(() => t.services.events.listenerBackendPid !== null, 'the listener to reconnect', 10_000);
      assert.notEqual(t.services.events.listenerBackendPid, listenerBefore);
      assert.equal((await rename('after')).statusCode, 200);
      await stream.eventCount(2, 1000);
      const outbox = await testDb.database.db
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', line.org.organizationId)
        .where('type', '=', 'cell.updated')
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        stream.events.map((e) => e.id),
        outbox.map((r) => r.id),
      );
      assert.deepEqual(
        stream.events.map((e) => e.data.display_name),
        ['before', 'after'],
      );
      stream.close();
    });
  },
);

describe(
  'SQLite locked by another connection past the busy timeout',
  { skip: postgres ? 'SQLite only' : false },
  () => {
    let testDb: TestDatabase;
    let t: TestApp;
    let line: Line;
    let holder: DatabaseSync;

    before(async () => {
      testDb = await freshDatabase();
      t = await startApp({ deps: { database: testDb.database } });
      line = await activeLine(t);
      // The app's single connection waits 5 s for a lock; the test needs no such wait to prove the answer.
      await sql`PRAGMA busy_timeout = 50`.execute(testDb.database.db);
      holder = new DatabaseSync(testDb.url.slice('sqlite:'.length));
    });

    after(async () => {
      holder?.close();
      await t?.close();
      await testDb?.drop();
    });

    it('answers 503 unavailable with Retry-After while the lock is held, and works again once it is released', async () => {
      holder.exec('BEGIN IMMEDIATE');
      try {
        expectUnavailable(await send(t, line, { to: '+14155550142', body: 'while locked' }));
        expectUnavailable(
          await t.app.inject({
            method: 'PATCH',
            url: `/v1/cells/${line.cell.id}`,
            headers: line.org.headers,
            payload: { display_name: 'while locked' },
          }),
        );
      } finally {
        holder.exec('ROLLBACK');
      }
      const response = await send(t, line, { to: '+14155550142', body: 'after' });
      assert.equal(response.statusCode, 202, response.body);
      const bodies = await testDb.database.db
        .selectFrom('messages')
        .select('body')
        .where('cell_id', '=', line.cell.id)
        .execute();
      assert.deepEqual(
        bodies.map((m) => m.body),
        ['after'],
      );
    });
  },
);
