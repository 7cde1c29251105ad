import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';
import { expectProblem, freshDatabase, startApp, type TestApp, type TestDatabase } from '../../../test/harness.ts';

describe('GET /health', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

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
    const { app } = await buildApp({ config: config(), database, logger: false, workers: false, mailer: { send: async () => {}, close() {} } });
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

function config() {
  return loadConfig({ CELLGATE_BASE_URL: 'http://cellgate.test', CELLGATE_RATE_LIMIT: '0' });
}
