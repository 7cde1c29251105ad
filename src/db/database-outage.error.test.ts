// A real `cellgate serve` process on PostgreSQL losing every database connection under load
// (pg_terminate_backend on all backends of its database, three times, while 16 send loops and a
// rename loop run): the process stays up, every answer is 202/200 or 503 `unavailable` with
// Retry-After (never 500, never a dropped connection), every accepted send is stored, the service
// recovers by itself, and the LISTEN connection comes back so the event stream has no gap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import pg from 'pg';
import {
  activeOrganizationOn,
  call,
  PROCESS_ADMIN_TOKEN,
  skipUnlessPostgres,
  type ChildServer,
} from '../../test/processes.ts';
import { useServerProcesses } from '../../test/support/server-processes.ts';
import { assertWokenByNotify, eventually, StreamClient } from '../../test/support/stream-client.ts';

interface Outcome {
  kind: 'send' | 'rename';
  status: number;
  contentType: string;
  retryAfter: string | null;
  body: string;
}

const LOOPS = 16;

describe('a server process losing its PostgreSQL connections under load', { skip: skipUnlessPostgres }, () => {
  const processes = useServerProcesses('cellgate_outage', { count: 1 });
  let server: ChildServer;
  let admin: pg.Client;
  let stderr = '';

  before(async () => {
    server = processes.a;
    server.child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20_000);
    });
    admin = new pg.Client({ connectionString: processes.databaseUrl });
    admin.on('error', () => {});
    await admin.connect();
  });

  after(async () => {
    await admin?.end().catch(() => {});
  });

  /** Terminates every other backend of the service's database; how many. */
  async function terminateBackends(): Promise<number> {
    const { rowCount } = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rowCount ?? 0;
  }

  async function attempt(
    kind: Outcome['kind'],
    method: string,
    path: string,
    token: string,
    body: unknown,
  ): Promise<Outcome> {
    try {
      const response = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        kind,
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      };
    } catch (error) {
      // The process died (or dropped the connection): the test reports it below.
      return { kind, status: 0, contentType: '', retryAfter: null, body: String((error as Error).cause ?? error) };
    }
  }

  it('stays up, answers 503 unavailable with Retry-After during the outage, keeps every accepted send and recovers', async (t) => {
    const signUp = await activeOrganizationOn(server, 'outage');
    const apiKey: string = signUp.api_key;
    const stream = await StreamClient.ready(`${server.url.replace('http:', 'ws:')}/v1/events/stream`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await call(server, 'POST', '/v1/admin/devices', PROCESS_ADMIN_TOKEN, {
      phone_number: `+1415555${String(randomInt(0, 10_000)).padStart(4, '0')}`,
    });
    const cell = await call(server, 'POST', '/v1/cells', apiKey, { display_name: 'outage' });
    assert.equal(cell.status, 'active');

    const outcomes: Outcome[] = [];
    const accepted: string[] = [];
    let running = true;
    const sendLoop = async (n: number) => {
      for (let i = 0; running; i += 1) {
        const outcome = await attempt('send', 'POST', `/v1/cells/${cell.id}/messages/send`, apiKey, {
          to: '+14155550142',
          body: `loop ${n} #${i}`,
        });
        outcomes.push(outcome);
        if (outcome.status === 202) accepted.push(JSON.parse(outcome.body).id);
      }
    };
    const renameLoop = async () => {
      for (let i = 0; running; i += 1) {
        outcomes.push(
          await attempt('rename', 'PATCH', `/v1/cells/${cell.id}`, apiKey, { display_name: `rename ${i}` }),
        );
      }
    };
    const loops = [...Array.from({ length: LOOPS }, (_, n) => sendLoop(n)), renameLoop()];

    let terminated = 0;
    const summary = () => {
      const counts: Record<number, number> = {};
      for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
      const odd = outcomes.find((o) => ![200, 202, 503].includes(o.status));
      return `outcomes by status ${JSON.stringify(counts)}, ${terminated} backends terminated; first unexpected: ${odd?.body.slice(0, 300)}\n${stderr.slice(-3000)}`;
    };
    // Under load (and, after a round, recovered by itself): 30 more sends accepted, within seconds.
    const moreAccepted = async (what: string) => {
      const mark = accepted.length;
      const broken = () => outcomes.some((o) => o.status === 0 || o.status === 500);
      await eventually(() => accepted.length >= mark + 30 || broken(), what, 10_000).catch((error: Error) => {
        throw new Error(`${error.message}: ${summary()}`);
      });
    };
    try {
      for (let round = 1; round <= 3; round += 1) {
        await moreAccepted(`30 accepted sends before round ${round}`);
        terminated += await terminateBackends();
      }
      await moreAccepted('30 accepted sends after the last round');
    } finally {
      running = false;
      await Promise.all(loops);
    }
    t.diagnostic(summary().split('\n')[0]);
    assert.equal(server.child.exitCode, null, `the process exited: ${summary()}`);
    assert.equal(server.child.signalCode, null, `the process was killed: ${summary()}`);
    assert.ok(terminated >= 3, summary());
    for (const outcome of outcomes) {
      const ok = outcome.kind === 'send' ? 202 : 200;
      if (outcome.status === ok) continue;
      assert.equal(outcome.status, 503, `${outcome.kind}: ${outcome.status} ${outcome.body}; ${summary()}`);
      assert.match(outcome.contentType, /^application\/problem\+json/);
      assert.equal(JSON.parse(outcome.body).code, 'unavailable');
      assert.ok(Number(outcome.retryAfter) >= 1, `Retry-After ${outcome.retryAfter}`);
    }

    // Every accepted send is stored.
    const stored = await admin.query<{ count: number }>(
      'select count(*)::int as count from messages where id = any($1)',
      [accepted],
    );
    assert.equal(stored.rows[0].count, accepted.length);

    // The event stream has every cell event of the outbox, in order, once each: the shared reader
    // resumed where it stopped.
    const ids = async () =>
      (
        await admin.query<{ id: string }>(
          "select id from events where organization_id = $1 and type not like 'billing.%' order by seq",
          [signUp.organization_id],
        )
      ).rows.map((r) => r.id);
    const expected = await ids();
    await stream.eventCount(expected.length, 10_000).catch((error: Error) => {
      const got = stream.events.map((e) => e.id);
      throw new Error(
        `${error.message.slice(0, 60)}; missing at positions ${expected
          .map((id, i) => (got.includes(id) ? -1 : i))
          .filter((i) => i >= 0)
          .join(',')} of ${expected.length}\n${stderr.slice(-4000)}`,
      );
    });
    assert.deepEqual(
      stream.events.map((e) => e.id),
      expected,
    );

    // The LISTEN connection is back (given one more event's time to reconnect after the last
    // round): each new event arrives well within the 2 s safety-net poll.
    await call(server, 'PATCH', `/v1/cells/${cell.id}`, apiKey, { display_name: 'settled' });
    await stream.eventCount(expected.length + 1, 3000);
    const took: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const count = stream.events.length;
      const started = Date.now();
      await call(server, 'PATCH', `/v1/cells/${cell.id}`, apiKey, { display_name: `after ${i}` });
      await stream.eventCount(count + 1, 3000);
      took.push(Date.now() - started);
    }
    assertWokenByNotify(took);
    assert.deepEqual(
      stream.events.map((e) => e.id),
      await ids(),
    );
    stream.close();
  });
});
