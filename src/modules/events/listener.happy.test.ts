// PostgreSQL: the stream is woken by NOTIFY on one LISTEN connection per process, which is
// re-opened when lost. The safety-net poll is set to a minute here, so only NOTIFY (or the wake
// after a reconnect) can deliver within the test's waits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { activeOrganization, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { eventually, StreamClient, withStream } from '../../../test/support/stream-client.ts';

const postgres = /^postgres(ql)?:/.test(process.env.CELLGATE_TEST_DATABASE_URL ?? '');

describe(
  'event wake-ups on PostgreSQL (LISTEN/NOTIFY)',
  { skip: postgres ? false : 'needs PostgreSQL (CELLGATE_TEST_POSTGRES_URL): SQLite wakes in-process' },
  () => {
    let t: TestApp;
    let url: string;
    withStream(
      (app, streamAt) => {
        t = app;
        url = streamAt;
      },
      { deps: { eventsPollMs: 60_000 } },
    );

    async function killListener(): Promise<number> {
      const pid = t.services.events.listenerBackendPid;
      assert.ok(pid, 'the LISTEN connection is up');
      await sql`select pg_terminate_backend(${pid})`.execute(t.database.db);
      return pid;
    }

    it('delivers a committed event through NOTIFY, without waiting for the poll', async () => {
      const org = await activeOrganization(t);
      const client = await StreamClient.ready(url, { headers: org.headers });
      await createCell(t, org.headers);
      await client.eventCount(1, 1000);
      client.close();
    });

    it('re-opens a lost LISTEN connection and catches up on what committed while it was down', async () => {
      const org = await activeOrganization(t);
      const client = await StreamClient.ready(url, { headers: org.headers });
      const killed = await killListener();
      await eventually(() => t.services.events.listenerBackendPid !== killed, 'the listener to notice');
      // Committed while no LISTEN connection exists: the reconnect's wake finds it.
      await createCell(t, org.headers, 'while down');
      await eventually(() => t.services.events.listenerBackendPid !== null, 'the listener to reconnect');
      await client.eventCount(1, 3000);
      // And NOTIFY works again on the new connection.
      await createCell(t, org.headers, 'after');
      await client.eventCount(2, 1000);
      assert.deepEqual(
        client.events.map((e) => e.data.display_name),
        ['while down', 'after'],
      );
      client.close();
    });
  },
);
