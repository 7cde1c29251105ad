// Issue 36 §2 and §4: a send's cost does not grow with its cell's queue, and its statements are
// counted. With an empty queue and with 20,000 messages queued on the cell, one send runs the
// same statements; none of them scans the messages table (SQLite's EXPLAIN QUERY PLAN,
// PostgreSQL's EXPLAIN), and on PostgreSQL none reads more rows of it than a minute of the
// phone's rate and its claims (EXPLAIN ANALYZE). Before issue 36 the pace read after the commit counted up to an
// hour of the queue (1,800 rows at 30 segments a minute) on every send.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPostgres } from '../../db/migrations/dialect.ts';
import type { Statement } from '../../db/observed-dialect.ts';
import { useApp } from '../../../test/harness.ts';
import {
  explain,
  queueMany,
  replannedOnBind,
  rowsReadFromMessages,
  scansMessages,
  touchesMessages,
} from '../../../test/support/message-plans.ts';
import { activeLine, claim, report, send } from '../../../test/support/messages.ts';
import { Statements } from '../../../test/support/statements.ts';
import { statementName } from '../../db/prepared.ts';

/**
 * The statements of one send, begin to commit, and nothing after the commit: the billing account,
 * the cell with its phone, opt-outs, the charge (balance, ledger, usage; on PostgreSQL the ledger
 * and usage rows are one statement), the conversation, the message, the idempotency record and
 * the pace; on PostgreSQL the pace read also selects the pg_notify that wakes the phones' streams
 * in other processes (messages/remote-wakeups.ts), delivered at the commit. A feature that adds one to the send path changes these numbers, and
 * says why. Before issue 36: 13 (the phone and the pace read after the commit, the pace counting
 * the queue); then 12 on both, PostgreSQL's pg_notify running after the commit, not awaited, and
 * so left out of the count; then 13 on PostgreSQL, the pg_notify a statement of its own in the
 * transaction; 12 again since it rides on the pace read; 11 since the ledger and usage inserts
 * are one.
 */
const SEND_STATEMENTS = { sqlite: 12, postgres: 11 };
const RATE = 30;
const QUEUED = 20_000;
/** Messages the phone claimed before the sends measured. */
const CLAIMED = 1;

const sqlOf = (statements: readonly Statement[]) => statements.map((statement) => statement.sql);

describe('the statements of a send', () => {
  const statements = new Statements();
  const t = useApp({ observe: statements.observe });

  it('are the same with 0 and 20,000 queued on the cell, none scanning the messages table', async () => {
    const line = await activeLine(t, { send_rate_per_minute: RATE, daily_send_limit: 10_000 });
    const key = (name: string) => ({ 'idempotency-key': `${name}-${process.pid}` });
    const warm = await send(t, line, { to: '+14155550101', body: 'warm-up' }, key('warm'));
    assert.equal(warm.statusCode, 202, warm.body);
    assert.equal((await claim(t, line)).length, CLAIMED, 'the queue is empty again');

    const empty = await statements.during(() => send(t, line, { to: '+14155550101', body: 'a' }, key('a')));
    assert.equal(empty.result.statusCode, 202, empty.result.body);
    const expected = SEND_STATEMENTS[isPostgres(t.database.db) ? 'postgres' : 'sqlite'];
    assert.equal(empty.statements.length, expected, sqlOf(empty.statements).join('\n'));
    assert.match(empty.statements[0].sql, /^\s*begin/i, 'the send begins with its transaction');
    assert.match(empty.statements[expected - 1].sql, /^\s*commit/i, 'and nothing follows its commit');

    await queueMany(t, warm.json().id as string, QUEUED);
    const deep = await statements.during(() => send(t, line, { to: '+14155550101', body: 'b' }, key('b')));
    assert.equal(deep.result.statusCode, 202, deep.result.body);
    assert.deepEqual(sqlOf(deep.statements), sqlOf(empty.statements));
    assert.deepEqual(
      [deep.result.headers['ratelimit-limit'], deep.result.headers['ratelimit-remaining']],
      [String(RATE), '0'],
      'the queue fills the minute',
    );

    const reads = deep.statements.filter(touchesMessages);
    assert.ok(reads.length >= 2, 'the insert and the pace');
    for (const statement of reads) {
      const plan = await explain(t, statement);
      assert.ok(!scansMessages(plan), `${statement.sql}\n${plan.join('\n')}`);
    }
    // The claim windows (a day of the phone's claims) are summed from the claims index alone.
    const pace = deep.statements.find((statement) => /"claimed_at" >/.test(statement.sql));
    assert.ok(pace, 'the pace read');
    // On PostgreSQL the pace read runs unnamed, planned for its values each run (a generic plan may
    // read a phone's whole history); the batch's other statements are named, parsed once.
    assert.equal(statementName(pace.sql), undefined, 'the pace read is planned for its values');
    const insert = deep.statements.find((statement) => /^insert into "messages"/.test(statement.sql));
    assert.ok(insert && statementName(insert.sql), 'the message insert is a named statement');
    if (!isPostgres(t.database.db)) {
      const windows = (await explain(t, pace)).filter((line) => /messages_device_claims/.test(line));
      assert.equal(windows.length, 1, 'both windows in one read of the claims index');
      for (const line of windows) assert.match(line, /USING COVERING INDEX messages_device_claims/);
      // So is the queue ahead (a minute of the phone's rate), from the cell's status index.
      assert.ok(
        (await explain(t, pace)).some((line) => /USING COVERING INDEX messages_cell_status/.test(line)),
        'the queue ahead read from the cell status index alone',
      );
    }
    if (isPostgres(t.database.db)) {
      for (const statement of reads.filter((s) => /^\s*select/i.test(s.sql))) {
        const read = await rowsReadFromMessages(t, statement);
        // A minute of the phone's rate from the queue, and its one claim of the day.
        assert.ok(read <= RATE + CLAIMED, `${read} rows of messages read by\n${statement.sql}`);
      }
    }
  });

  it('are planned once on SQLite: no statement of a message’s way out is planned again when run', async (test) => {
    if (isPostgres(t.database.db)) return test.skip('PostgreSQL plans by statement name (db/prepared.ts)');
    const line = await activeLine(t, { send_rate_per_minute: RATE });
    const sent = await statements.during(() => send(t, line, { to: '+14155550103', body: 'once' }));
    assert.equal(sent.result.statusCode, 202, sent.result.body);
    const claimed = await statements.during(() => claim(t, line));
    assert.equal(claimed.result.length, 1);
    const id = claimed.result[0].id;
    const reported = await statements.during(async () => [
      await report(t, line, id, { event: 'sent' }),
      await report(t, line, id, { event: 'delivered' }),
    ]);
    for (const answer of reported.result) assert.ok(answer.statusCode < 300, answer.body);
    for (const statement of [...sent.statements, ...claimed.statements, ...reported.statements]) {
      if (/^\s*(begin|commit|rollback)\b/i.test(statement.sql)) continue;
      assert.equal(await replannedOnBind(t, statement), false, statement.sql);
    }
  });
});
