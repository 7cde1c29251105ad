// Two real server processes on one PostgreSQL database: an event caused through process A reaches
// stream clients of process B (LISTEN/NOTIFY), in the same order and without duplicates as on A.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { activeOrganizationOn, call, skipUnlessPostgres, type ChildServer } from '../../../test/processes.ts';
import { useServerProcesses } from '../../../test/support/server-processes.ts';
import { assertWokenByNotify, StreamClient } from '../../../test/support/stream-client.ts';

const streamOf = (server: ChildServer) => `${server.url.replace('http:', 'ws:')}/v1/events/stream`;

describe('event stream across two processes on one PostgreSQL database', { skip: skipUnlessPostgres }, () => {
  const servers = useServerProcesses('cellgate_evmp');

  it('delivers events caused through process A to clients of process B, in outbox order, once each', async () => {
    const { a, b } = servers;
    const signUp = await activeOrganizationOn(a, 'evmp');
    const headers = { authorization: `Bearer ${signUp.api_key}` };

    const onB = await StreamClient.ready(streamOf(b), { headers });
    const onA = await StreamClient.ready(streamOf(a), { headers });
    const cell = await call(a, 'POST', '/v1/cells', signUp.api_key, { display_name: 'line 0' });
    const [created] = await onB.eventCount(1);
    assert.equal(created.type, 'cell.created');
    assert.equal(created.data.id, cell.id);

    // Woken by NOTIFY, not found by the 2 s safety-net poll.
    const took: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const before = onB.events.length;
      const started = Date.now();
      await call(a, 'PATCH', `/v1/cells/${cell.id}`, signUp.api_key, { display_name: `prompt ${i}` });
      await onB.eventCount(before + 1);
      took.push(Date.now() - started);
    }
    assertWokenByNotify(took);

    // Renames through both processes, 5 at a time: the two streams must agree with the outbox.
    for (let i = 1; i <= 30; i += 5) {
      await Promise.all(
        [0, 1, 2, 3, 4].map((j) =>
          call(j % 2 ? b : a, 'PATCH', `/v1/cells/${cell.id}`, signUp.api_key, { display_name: `line ${i + j}` }),
        ),
      );
    }
    const db = new pg.Client({ connectionString: servers.databaseUrl });
    await db.connect();
    const expected = (
      await db.query<{ id: string }>(
        "select id from events where organization_id = $1 and type like 'cell.%' order by seq",
        [signUp.organization_id],
      )
    ).rows.map((r) => r.id);
    await db.end();
    assert.equal(expected.length, 36);
    await onB.eventCount(36, 10_000);
    await onA.eventCount(36, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100)); // a duplicate would arrive right behind
    assert.deepEqual(
      onB.events.map((e) => e.id),
      expected,
    );
    assert.deepEqual(
      onA.events.map((e) => e.id),
      expected,
    );

    // A client of B resuming from the 10th event replays the rest from the shared outbox.
    const resumed = await StreamClient.ready(`${streamOf(b)}?since=${expected[9]}`, { headers });
    assert.deepEqual(
      resumed.events.map((e) => e.id),
      expected.slice(10),
    );
    for (const client of [onA, onB, resumed]) client.close();
  });
});
