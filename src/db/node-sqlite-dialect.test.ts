// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// SQLite plans a statement with a bare `limit ?` again each time the limit is bound; the dialect
// writes limits as casts, which it plans once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { Kysely } from 'kysely';
import { nodeSqliteDialect } from './node-sqlite-dialect.ts';
import { replanned } from '../../test/support/message-plans.ts';

describe('the node:sqlite dialect', () => {
  const database = new DatabaseSync(':memory:');
  database.exec(
    "create table items (id integer primary key, status text); create index items_open on items (id) where status = 'open'",
  );

  it('plans a bare bound limit again on every run (why the dialect casts it)', () => {
    assert.equal(replanned(database, 'select id from items order by id limit ?', [5]), true);
    assert.equal(replanned(database, 'select id from items where status = ? order by id', ['open']), true);
  });

  it('writes limits that are planned once', () => {
    const db = new Kysely<{ items: { id: number; status: string } }>({
      dialect: nodeSqliteDialect(':memory:').dialect,
    });
    const { sql, parameters } = db.selectFrom('items').select('id').orderBy('id').limit(5).compile();
    assert.equal(sql, 'select "id" from "items" order by "id" limit cast(? as integer)');
    assert.equal(replanned(database, sql, parameters), false);
    assert.deepEqual(database.prepare(sql).all(...(parameters as number[])), []);
  });
});
