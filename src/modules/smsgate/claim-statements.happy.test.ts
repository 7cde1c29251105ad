// The SMSGate app's claim (GET /mobile/v1/message) stays bounded like a send (issue 34 §1, the
// guard of messages/send-statements.happy.test.ts): a dual-SIM phone claiming from a queue of 10
// messages and from one of 20,000 runs the same statements, oldest first (fifo) or newest first
// (lifo); none scans the messages table (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN), and
// on PostgreSQL none reads more rows of it than the claim's limit per line and the day's claims.
// And its state reports (PATCH /mobile/v1/message) cost what the native surface's do (issue 34
// §7): a Sent and a Delivered run the very statements of the native report of the same event.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPostgres } from '../../db/migrations/dialect.ts';
import type { Statement } from '../../db/observed-dialect.ts';
import { activeOrganization, admin, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { activeLine, claim, send } from '../../../test/support/messages.ts';
import { mobileLine, mobilePhone, nextNumber, twoSims } from '../../../test/support/mobile.ts';
import {
  explain,
  queueMany,
  rowsReadFromMessages,
  scansMessages,
  touchesMessages,
} from '../../../test/support/message-plans.ts';
import { Statements } from '../../../test/support/statements.ts';

/**
 * The statements of one pull by a dual-SIM phone: its token and presence, its assignment, whether
 * a line has work, then begin, the pace, each line's candidates, the lease, commit, and the phone
 * with its SIM lines for each message's simNumber. PostgreSQL adds the claim's advisory lock.
 */
const CLAIM_STATEMENTS = 12;
/** What the app is handed per pull (SmsgateService.claim). */
const PULL = 10;
const QUEUED = 20_000;

/** The SQL of each statement, its id lists (`in (?, ?)`, `in ($3, $4)`) as one placeholder. */
const shapesOf = (statements: readonly Statement[]) =>
  statements.map((statement) => statement.sql.replace(/in \((?:[$?]\d*(?:, )?)+\)/g, 'in (…)'));

describe('the statements of an SMSGate claim', () => {
  const statements = new Statements();
  const t = useApp({ observe: statements.observe });

  it('are the same with 10 and 20,000 queued, fifo or lifo, none scanning the messages table', async () => {
    const phone = await mobilePhone(t, twoSims(nextNumber(), nextNumber()));
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${phone.id}`,
      headers: admin,
      payload: { send_rate_per_minute: 30, daily_send_limit: 10_000 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const org = await activeOrganization(t);
    const cells = [await createCell(t, org.headers, 'SIM 1'), await createCell(t, org.headers, 'SIM 2')];
    const sent: string[] = [];
    for (let i = 0; i < PULL; i += 1) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/cells/${cells[i % 2].id}/messages/send`,
        headers: org.headers,
        payload: { to: '+14155550199', body: `text ${i}` },
      });
      assert.equal(response.statusCode, 202, response.body);
      sent.push(response.json().id);
    }
    const pull = async (order: 'fifo' | 'lifo') => {
      // A new minute each pull: pacing is not what this measures.
      t.clock.advance(61_000);
      const observed = await statements.during(() =>
        t.app.inject({ url: `/mobile/v1/message?order=${order}`, headers: phone.headers }),
      );
      assert.equal(observed.result.statusCode, 200, observed.result.body);
      assert.equal(observed.result.json().length, PULL);
      return observed;
    };

    const shallow = await pull('fifo');
    await queueMany(t, sent[0], QUEUED / 2);
    await queueMany(t, sent[1], QUEUED / 2);
    const deepFifo = await pull('fifo');
    const deepLifo = await pull('lifo');
    const lock = isPostgres(t.database.db) ? 1 : 0;
    assert.equal(shallow.statements.length, CLAIM_STATEMENTS + lock, shapesOf(shallow.statements).join('\n'));
    assert.deepEqual(shapesOf(deepFifo.statements), shapesOf(shallow.statements));
    assert.deepEqual(
      shapesOf(deepLifo.statements),
      shapesOf(shallow.statements).map((sql) => sql.replace(/order by "id" asc/, 'order by "id" desc')),
    );
    assert.ok(shapesOf(deepLifo.statements).some((sql) => /order by "id" desc/.test(sql)));

    for (const { statements: run } of [deepFifo, deepLifo]) {
      const reads = run.filter(touchesMessages);
      assert.ok(reads.length >= 3, 'the candidates of each line, the pace and the lease');
      for (const statement of reads) {
        const plan = await explain(t, statement);
        const shown = `${statement.sql}\n${plan.join('\n')}`;
        // PostgreSQL may answer "is one queued?" (limit 1) by reading the table until it finds one
        // when the phone's queue is most of it, as here: bounded by the rows read, checked below.
        const stopsAtFirst = isPostgres(t.database.db) && /^Limit\b/.test(plan[0]?.trim() ?? '');
        assert.ok(stopsAtFirst || !scansMessages(plan), shown);
        // Either order walks the index: no sort of the queue.
        assert.ok(!plan.some((line) => /TEMP B-TREE|\bSort\b/.test(line)), shown);
      }
      if (isPostgres(t.database.db))
        for (const statement of reads.filter((s) => /^\s*select/i.test(s.sql))) {
          const read = await rowsReadFromMessages(t, statement);
          // A pull's worth from each line's queue, and the day's claims (three pulls) for the pace.
          assert.ok(read <= 2 * PULL + 3 * PULL, `${read} rows of messages read by\n${statement.sql}`);
        }
    }
  });
});

/**
 * A report's statements up to its commit: what follows (on SQLite, the event feed reading the new
 * event, woken in the request's async context) is the event's, not the report's.
 */
const untilCommit = (statements: readonly Statement[]) =>
  statements.slice(0, statements.findIndex((statement) => /^\s*commit/i.test(statement.sql)) + 1 || undefined);

describe('the statements of an SMSGate state report', () => {
  const statements = new Statements();
  const t = useApp({ observe: statements.observe });

  it('are those of the native report: Sent and Delivered as sent and delivered', async () => {
    const app = await mobileLine(t);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${app.cell.id}/messages/send`,
      headers: app.org.headers,
      payload: { to: '+14155550199', body: 'through the app' },
    });
    assert.equal(sent.statusCode, 202, sent.body);
    const appId = sent.json().id as string;
    assert.equal((await t.app.inject({ url: '/mobile/v1/message', headers: app.phone.headers })).json().length, 1);
    const native = await activeLine(t);
    const queued = await send(t, native, { to: '+14155550199', body: 'through the native surface' });
    assert.equal(queued.statusCode, 202, queued.body);
    const nativeId = queued.json().id as string;
    assert.equal((await claim(t, native)).length, 1);

    for (const [state, event] of [
      ['Sent', 'sent'],
      ['Delivered', 'delivered'],
    ] as const) {
      // A new second each: the phones' presence is written at most once a second, by both doors alike.
      t.clock.advance(1_000);
      const byApp = await statements.during(() =>
        t.app.inject({
          method: 'PATCH',
          url: '/mobile/v1/message',
          headers: app.phone.headers,
          payload: [{ id: appId, state, recipients: [], states: {} }],
        }),
      );
      assert.equal(byApp.result.statusCode, 204, byApp.result.body);
      const byNative = await statements.during(() =>
        t.app.inject({
          method: 'POST',
          url: `/v1/device/messages/${nativeId}/events`,
          headers: native.device.headers,
          payload: { event_id: `native-${event}`, event, occurred_at: t.clock.now().toISOString() },
        }),
      );
      assert.equal(byNative.result.statusCode, 200, byNative.result.body);
      assert.deepEqual(shapesOf(untilCommit(byApp.statements)), shapesOf(untilCommit(byNative.statements)), state);
    }
  });
});
