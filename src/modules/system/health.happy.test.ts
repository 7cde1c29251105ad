import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { sql } from 'kysely';
import { openDatabase } from '../../db/database.ts';
import { expectProblem, freshDatabase, type TestDatabase, useApp } from '../../../test/harness.ts';

describe('GET /health', () => {
  const t = useApp();

  it('answers 200 with status, version and database ok, without a credential', async () => {
    const response = await t.app.inject({ url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', version: '0.1.0', database: 'ok' });
  });
});

describe('GET /health with the database down', () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await freshDatabase();
  });
  after(() => testDb.drop());

  it('answers 503 unavailable with Retry-After once the database is closed', async () => {
    const database = openDatabase(testDb.url);
    const { app } = await buildApp({
      config: config(),
      database,
      logger: false,
      workers: false,
      mailer: { send: async () => {}, close() {} },
    });
    await app.ready();
    try {
      assert.equal((await app.inject({ url: '/health' })).statusCode, 200);
      await database.close();
      const response = await app.inject({ url: '/health' });
      const body = expectProblem(response, 503, 'unavailable');
      assert.ok(Number(response.headers['retry-after']) > 0);
      assert.equal(body.database, 'unreachable');
    } finally {
      await app.close();
    }
  });
});

describe('GET /health on a database that cannot be written', () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await freshDatabase();
  });
  after(() => testDb.drop());

  // A read-only file opened by a running process cannot be made so as root (chmod does not stop
  // root, and the open descriptor keeps write access): the connection itself is made read-only,
  // which refuses writes with the same error a read-only file or server gives.
  it('answers 503 unavailable with database read_only, where a read would still succeed', async () => {
    const database = openDatabase(testDb.url, { poolSize: 1 });
    const { app } = await buildApp({
      config: config(),
      database,
      logger: false,
      workers: false,
      mailer: { send: async () => {}, close() {} },
    });
    await app.ready();
    try {
      assert.equal((await app.inject({ url: '/health' })).statusCode, 200);
      if (database.dialect === 'sqlite') await sql`pragma query_only = 1`.execute(database.db);
      else await sql`set session characteristics as transaction read only`.execute(database.db);
      await sql`select 1`.execute(database.db);
      const response = await app.inject({ url: '/health' });
      const body = expectProblem(response, 503, 'unavailable');
      assert.equal(body.database, 'read_only');
      assert.match(String(body.detail), /read-only/);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

function config() {
  return loadConfig({ CELLGATE_BASE_URL: 'http://cellgate.test', CELLGATE_RATE_LIMIT: '0' });
}
