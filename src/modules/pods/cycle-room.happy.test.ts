// Issue 36: the broadcast planner asks how much more it may queue on a cell (pace.ts queueRoom)
// with the send's pace statement, which sums the cell's queue over at most the planner's window
// (QUEUE_WINDOW_MINUTES of the phone's rate, in messages): a tick costs the same however deep
// the queue that sends left on the cell. Before, each tick summed the cell's whole queue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPostgres } from '../../db/migrations/dialect.ts';
import { useApp } from '../../../test/harness.ts';
import {
  explain,
  queueMany,
  rowsReadFromMessages,
  scansMessages,
  touchesMessages,
} from '../../../test/support/message-plans.ts';
import { activeLine, send } from '../../../test/support/messages.ts';
import { call, createPod } from '../../../test/support/pods.ts';
import { Statements } from '../../../test/support/statements.ts';
import { QUEUE_WINDOW_MINUTES } from './cycle-planner.ts';

const RATE = 2;
/** The planner's window of the queue, in messages. */
const WINDOW = RATE * QUEUE_WINDOW_MINUTES;
const QUEUED = 2_000;

describe('the broadcast planner on a cell with a deep queue', () => {
  const statements = new Statements();
  const t = useApp({ observe: statements.observe });

  it('reads at most its window of the queue, and queues nothing while the queue fills that window', async () => {
    const line = await activeLine(t, { send_rate_per_minute: RATE, daily_send_limit: 10_000 });
    const pod = await createPod(t, line.org, [line.cell.id]);
    const first = await send(t, line, { to: '+14155550101', body: 'ahead of the broadcast' });
    assert.equal(first.statusCode, 202, first.body);
    await queueMany(t, first.json().id as string, QUEUED);
    const queuedOnCell = () =>
      t.database.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('cell_id', '=', line.cell.id)
        .where('status', '=', 'queued')
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.n));

    const broadcast = await call(t, line.org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, {
      mode: 'broadcast',
      body: 'to all',
      to: ['+14155550102', '+14155550103'],
    });
    assert.equal(broadcast.statusCode, 202, broadcast.body);
    const tick = await statements.during(() => t.services.cycleWorker.tick());
    assert.equal(await queuedOnCell(), QUEUED + 1, 'the queue already holds more than the window: nothing more');

    const reads = tick.statements.filter(touchesMessages);
    assert.ok(
      reads.some((statement) => /limit/i.test(statement.sql)),
      `the room is read: ${reads.map((s) => s.sql).join('\n')}`,
    );
    for (const statement of reads) {
      const plan = await explain(t, statement);
      assert.ok(!scansMessages(plan), `${statement.sql}\n${plan.join('\n')}`);
      if (isPostgres(t.database.db) && /^\s*select/i.test(statement.sql)) {
        const read = await rowsReadFromMessages(t, statement);
        assert.ok(read <= WINDOW, `${read} rows of messages read by\n${statement.sql}`);
      }
    }
  });
});
