import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../../test/harness.ts';
import { sql } from 'kysely';
import { isPostgres } from './migrations/dialect.ts';
import { prepared, preparedLists, statementName } from './prepared.ts';

const insertMail = prepared((ex, p: { id: string; to: string; subject: string }) =>
  ex.insertInto('dev_outbox').values({
    id: p.id,
    to_address: p.to,
    subject: p.subject,
    text: 'fixed text',
    created_at: '2026-11-21T12:00:00.000Z',
  }),
);
// `to` is used twice, and a value fixed at build time sits between the parameters.
const findMail = prepared((ex, p: { to: string; minId: string }) =>
  ex
    .selectFrom('dev_outbox')
    .select(['id', 'subject', 'text'])
    .where('to_address', '=', p.to)
    .where('text', '=', 'fixed text')
    .where('id', '>=', p.minId)
    .where('subject', '!=', p.to)
    .orderBy('id'),
);

// Two `in` lists and a value fixed at build time; compiled once per pair of lengths.
const mailAmong = preparedLists((ex, p: { ids: readonly string[]; to: readonly string[] }) =>
  ex
    .selectFrom('dev_outbox')
    .select('id')
    .where('id', 'in', p.ids)
    .where('text', '=', 'fixed text')
    .where('to_address', 'in', p.to)
    .orderBy('id'),
);

describe('prepared statements', () => {
  let test: TestDatabase;
  before(async () => {
    test = await freshDatabase();
  });
  after(() => test.drop());

  it('binds fresh values on every run, and keeps the values fixed at build time', async () => {
    const db = test.database.db;
    await insertMail.execute(db, { id: 'mail_p1', to: 'prepared@example.com', subject: 'one' });
    await insertMail.execute(db, { id: 'mail_p2', to: 'prepared@example.com', subject: 'two' });
    await insertMail.execute(db, { id: 'mail_p3', to: 'other@example.com', subject: 'three' });
    const rows = (await findMail.execute(db, { to: 'prepared@example.com', minId: 'mail_p' })).rows;
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [
        { id: 'mail_p1', subject: 'one', text: 'fixed text' },
        { id: 'mail_p2', subject: 'two', text: 'fixed text' },
      ],
    );
    assert.deepEqual(
      { ...(await findMail.first(db, { to: 'other@example.com', minId: 'mail_p' })) },
      { id: 'mail_p3', subject: 'three', text: 'fixed text' },
    );
    assert.equal(await findMail.first(db, { to: 'nobody@example.com', minId: 'mail_p' }), undefined);
  });

  it('a parameter used twice is bound in both places', async () => {
    const db = test.database.db;
    await insertMail.execute(db, { id: 'mail_q1', to: 'twice@example.com', subject: 'twice@example.com' });
    await insertMail.execute(db, { id: 'mail_q2', to: 'twice@example.com', subject: 'other' });
    assert.deepEqual(
      (await findMail.execute(db, { to: 'twice@example.com', minId: '' })).rows.map((row) => row.id),
      ['mail_q2'],
    );
  });

  it('refuses a value computed from a parameter, which would be bound as a constant', async () => {
    const derived = prepared((ex, p: { to: string }) =>
      ex.selectFrom('dev_outbox').select('id').where('to_address', '=', `${p.to}.invalid`),
    );
    await assert.rejects(derived.execute(test.database.db, { to: 'x' }), /derived from a parameter/);
  });

  it('runs inside transactions, whose writes roll back with them', async () => {
    const db = test.database.db;
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await insertMail.execute(tx, { id: 'mail_p4', to: 'rolled@example.com', subject: 'four' });
        assert.equal((await findMail.first(tx, { to: 'rolled@example.com', minId: '' }))?.id, 'mail_p4');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await findMail.first(db, { to: 'rolled@example.com', minId: '' }), undefined);
  });

  it('binds lists of any length, each value in its place', async () => {
    const db = test.database.db;
    await insertMail.execute(db, { id: 'mail_l1', to: 'list-a@example.com', subject: 'one' });
    await insertMail.execute(db, { id: 'mail_l2', to: 'list-b@example.com', subject: 'two' });
    await insertMail.execute(db, { id: 'mail_l3', to: 'list-c@example.com', subject: 'three' });
    const ids = async (lists: { ids: string[]; to: string[] }) =>
      (await mailAmong(db, lists)).rows.map((row) => row.id);
    assert.deepEqual(
      await ids({ ids: ['mail_l1', 'mail_l2', 'mail_l3'], to: ['list-a@example.com', 'list-c@example.com'] }),
      ['mail_l1', 'mail_l3'],
    );
    assert.deepEqual(await ids({ ids: ['mail_l2'], to: ['list-b@example.com', 'list-c@example.com'] }), ['mail_l2']);
    assert.deepEqual(await ids({ ids: ['mail_l3', 'mail_l2'], to: ['list-b@example.com'] }), ['mail_l2']);
    // Same lengths as a run before, other values.
    assert.deepEqual(await ids({ ids: ['mail_l1'], to: ['list-a@example.com', 'list-b@example.com'] }), ['mail_l1']);
    // Longer than cached: compiled for this run.
    const many = Array.from({ length: 100 }, (_value, i) => `mail_none${i}`);
    assert.deepEqual(await ids({ ids: [...many, 'mail_l2'], to: ['list-b@example.com'] }), ['mail_l2']);
  });

  it('runs as a named statement on PostgreSQL, parsed once per connection', async (t) => {
    const db = test.database.db;
    if (!isPostgres(db)) return t.skip('PostgreSQL only');
    const statements = await db.transaction().execute(async (tx) => {
      for (const minId of ['', 'mail_']) await findMail.first(tx, { to: 'named@example.com', minId });
      return (
        await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(tx)
      ).rows;
    });
    const mine = statements.filter((row) => row.statement.includes('"dev_outbox"') && row.statement.includes('>='));
    assert.equal(mine.length, 1, JSON.stringify(statements));
    assert.equal(mine[0].name, statementName(mine[0].statement));
  });
});
