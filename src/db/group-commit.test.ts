import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Transaction } from 'kysely';
import { freshDatabase, type TestDatabase } from '../../test/harness.ts';
import { GroupCommit, Refused } from './group-commit.ts';
import type { DB } from './schema.ts';

const mail = (id: string) => ({
  id,
  to_address: 'group@example.com',
  subject: 's',
  text: 't',
  created_at: '2026-11-21T12:00:00.000Z',
});

describe('group commit', () => {
  let test: TestDatabase;
  before(async () => {
    test = await freshDatabase();
  });
  after(() => test.drop());

  const stored = async () =>
    (
      await test.database.db
        .selectFrom('dev_outbox')
        .select('id')
        .where('to_address', '=', 'group@example.com')
        .orderBy('id')
        .execute()
    ).map((r) => r.id);

  /**
   * Writes one mail per id in one multi-row insert; an id starting with "fail" fails its batch
   * after the insert; one starting with "refuse" is turned down and not written.
   */
  function mails() {
    const batches: string[][] = [];
    const write = async (tx: Transaction<DB>, ids: string[]) => {
      batches.push(ids);
      const written = ids.filter((id) => !id.startsWith('refuse'));
      if (written.length > 0) await tx.insertInto('dev_outbox').values(written.map(mail)).execute();
      if (ids.some((id) => id.startsWith('fail'))) throw new Error('this unit fails after writing');
      return ids.map((id) => (id.startsWith('refuse') ? new Refused(new Error(`${id} refused`)) : id.toUpperCase()));
    };
    return { writes: new GroupCommit(test.database.db, write), batches };
  }

  it('writes units submitted together with one call, in one transaction, and answers each', async () => {
    const { writes, batches } = mails();
    const ids = ['mail_a1', 'mail_a2', 'mail_a3', 'mail_a4'];
    const results = await Promise.all(ids.map((id) => writes.run(id)));
    assert.deepEqual(
      results,
      ids.map((id) => id.toUpperCase()),
    );
    assert.deepEqual(batches, [ids]);
    assert.deepEqual(await stored(), ids);
  });

  it('a failing unit rolls back alone and rejects; the others are written again alone and commit', async () => {
    const { writes, batches } = mails();
    const outcomes = await Promise.allSettled(['mail_b1', 'fail_b2', 'mail_b3'].map((id) => writes.run(id)));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /fails after writing/);
    assert.deepEqual(batches, [['mail_b1', 'fail_b2', 'mail_b3'], ['mail_b1'], ['fail_b2'], ['mail_b3']]);
    const ids = await stored();
    assert.ok(ids.includes('mail_b1') && ids.includes('mail_b3'));
    assert.ok(!ids.includes('fail_b2'), 'the failed unit left nothing behind');
  });

  it('a refused unit rejects with its error, alone, and the batch commits without running again', async () => {
    const { writes, batches } = mails();
    const outcomes = await Promise.allSettled(['mail_e1', 'refuse_e2', 'mail_e3'].map((id) => writes.run(id)));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /refuse_e2 refused/);
    assert.deepEqual(batches, [['mail_e1', 'refuse_e2', 'mail_e3']]);
    const ids = await stored();
    assert.ok(ids.includes('mail_e1') && ids.includes('mail_e3') && !ids.includes('refuse_e2'));
    await assert.rejects(writes.run('refuse_e4'), /refuse_e4 refused/);
  });

  it('a unit alone runs as a plain transaction', async () => {
    const { writes } = mails();
    await assert.rejects(writes.run('fail_c1'), /fails after writing/);
    assert.ok(!(await stored()).includes('fail_c1'));
  });
});
