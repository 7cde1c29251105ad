import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../../test/harness.ts';
import { atCommit, transact } from './transaction.ts';

describe('transact and atCommit', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  it("runs queued work after the caller's writes, in order, including work queued by queued work", async () => {
    const order: string[] = [];
    await transact(t.database.db, async (tx) => {
      atCommit(tx, async () => {
        order.push('first queued');
        atCommit(tx, async () => void order.push('queued by queued work'));
      });
      atCommit(tx, async () => void order.push('second queued'));
      order.push('caller');
    });
    assert.deepEqual(order, ['caller', 'first queued', 'second queued', 'queued by queued work']);
  });

  it('refuses a transaction that was not opened with transact(), so the outbox rule cannot be skipped', async () => {
    await assert.rejects(
      t.database.db.transaction().execute(async (tx) => atCommit(tx, async () => {})),
      /needs a transaction opened with transact\(\)/,
    );
  });

  it('rolls the whole transaction back when queued work fails', async () => {
    const id = 'mail_rolled_back';
    await assert.rejects(
      transact(t.database.db, async (tx) => {
        await tx
          .insertInto('dev_outbox')
          .values({ id, to_address: 'x@example.com', subject: 's', text: 't', created_at: '2026-01-01T00:00:00.000Z' })
          .execute();
        atCommit(tx, async () => {
          throw new Error('outbox write failed');
        });
      }),
      /outbox write failed/,
    );
    assert.equal(
      await t.database.db.selectFrom('dev_outbox').select('id').where('id', '=', id).executeTakeFirst(),
      undefined,
    );
  });
});
