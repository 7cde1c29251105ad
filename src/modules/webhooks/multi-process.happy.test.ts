// Two real server processes on one PostgreSQL database and one receiver: every event is delivered
// exactly once, each delivery attempted by exactly one of the processes, and both take part.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { activeOrganizationOn, call, skipUnlessPostgres } from '../../../test/processes.ts';
import { useServerProcesses } from '../../../test/support/server-processes.ts';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';

const EVENTS = 200;

describe('webhook delivery across two processes on one PostgreSQL database', { skip: skipUnlessPostgres }, () => {
  const processes = useServerProcesses('cellgate_mp', { env: { CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.stop();
  });

  it('delivers every event exactly once, attempted by one process each', async () => {
    const { a, b, all: servers } = processes;
    const signUp = await activeOrganizationOn(a, 'mp');
    const key = signUp.api_key as string;

    const webhook = await call(b, 'POST', '/v1/webhooks', key, {
      client_id: 'mp',
      url: receiver.url,
      event_types: ['cell.*'],
    });
    const cell = await call(a, 'POST', '/v1/cells', key, { display_name: 'line 0' });
    // cell.created, then one cell.updated per rename, half through each process, 10 at a time.
    for (let i = 1; i < EVENTS; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, EVENTS - i) }, (_, j) =>
          call(servers[(i + j) % 2], 'PATCH', `/v1/cells/${cell.id}`, key, { display_name: `line ${i + j}` }),
        ),
      );
    }

    const deadline = Date.now() + 20_000;
    while (receiver.requests.length < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Let any duplicate show up before counting.
    await new Promise((r) => setTimeout(r, 500));

    const db = new pg.Client({ connectionString: processes.databaseUrl });
    await db.connect();
    try {
      const events = (await db.query<{ id: string }>(`select id from events where type like 'cell.%'`)).rows.map(
        (r) => r.id,
      );
      assert.equal(events.length, EVENTS);
      const received = receiver.requests.map((r) => String(r.headers['webhook-id']));
      assert.equal(received.length, EVENTS, 'one request per event');
      assert.deepEqual([...new Set(received)].sort(), [...events].sort(), 'every event, none twice');

      const deliveries = await db.query<{ status: string; attempts: number; n: number }>(
        `select d.status, d.attempts, count(a.id)::int as n from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
         where d.webhook_id = $1 group by d.id, d.status, d.attempts`,
        [webhook.id],
      );
      assert.equal(deliveries.rows.length, EVENTS);
      assert.ok(
        deliveries.rows.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.n === 1),
        'one attempt per delivery',
      );
      const byProcess = await db.query<{ attempted_by: string; n: number }>(
        'select attempted_by, count(*)::int as n from webhook_attempts group by attempted_by',
      );
      assert.equal(byProcess.rows.length, 2, `both processes delivered: ${JSON.stringify(byProcess.rows)}`);
    } finally {
      await db.end();
    }
  });
});
