import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../../test/harness.ts';
import { GroupCommit } from './group-commit.ts';

const mail = (id: string) => ({ id, to_address: 'group@example.com', subject: 's', text: 't', created_at: '2026-11-21T12:00:00.000Z' });

describe('group commit', () => {
  let test: TestDatabase;
  before(async () => {
    test = await freshDatabase();
  });
  after(() => test.drop());

  const stored = async () =>
    (await test.database.db.selectFrom('dev_outbox').select('id').where('to_address', '=', 'group@example.com').orderBy('id').execute()).map((r) => r.id);

  it('commits units submitted together in one transaction and answers each', async () => {
    const writes = new GroupCommit(test.database.db, { batching: true });
    const ids = ['mail_a1', 'mail_a2', 'mail_a3', 'mail_a4'];
    const results = await Promise.all(ids.map((id) => writes.run(async (tx) => {
      await tx.insertInto('dev_outbox').values(mail(id)).execute();
      return id.toUpperCase();
    })));
    assert.deepEqual(results, ids.map((id) => id.toUpperCase()));
    assert.deepEqual(await stored(), ids);
  });

  it('a failing unit rolls back alone and rejects; the others commit', async () => {
    const writes = new GroupCommit(test.database.db, { batching: true });
    const outcomes = await Promise.allSettled([
      writes.run(async (tx) => tx.insertInto('dev_outbox').values(mail('mail_b1')).execute()),
      writes.run(async (tx) => {
        await tx.insertInto('dev_outbox').values(mail('mail_b2')).execute();
        throw new Error('this unit fails after writing');
      }),
      writes.run(async (tx) => tx.insertInto('dev_outbox').values(mail('mail_b3')).execute()),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /fails after writing/);
    const ids = await stored();
    assert.ok(ids.includes('mail_b1') && ids.includes('mail_b3'));
    assert.ok(!ids.includes('mail_b2'), 'the failed unit left nothing behind');
  });

  it('without batching each unit is a transaction of its own', async () => {
    const writes = new GroupCommit(test.database.db, { batching: false });
    const outcomes = await Promise.allSettled([
      writes.run(async (tx) => tx.insertInto('dev_outbox').values(mail('mail_d1')).execute()),
      writes.run(async () => {
        throw new Error('fails');
      }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected']);
    assert.ok((await stored()).includes('mail_d1'));
  });

  it('a unit alone runs as a plain transaction', async () => {
    const writes = new GroupCommit(test.database.db, { batching: true });
    await assert.rejects(writes.run(async (tx) => {
      await tx.insertInto('dev_outbox').values(mail('mail_c1')).execute();
      throw new Error('alone and failing');
    }));
    assert.ok(!(await stored()).includes('mail_c1'));
  });
});
