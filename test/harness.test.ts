// The test harness itself: a database it hands out again (PostgreSQL keeps emptied ones with their
// pool) goes to one app at a time, however often the app that had it is closed.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { signUp, startApp } from './harness.ts';

it('gives a database back once, however often its app is closed', async () => {
  const first = await startApp();
  await first.close();
  await first.close();
  const second = await startApp();
  const third = await startApp();
  try {
    await signUp(second);
    // Had the third app been handed the second's database, closing it would empty it.
    await third.close();
    const organizations = await second.database.db.selectFrom('organizations').select('id').execute();
    assert.equal(organizations.length, 1);
  } finally {
    await second.close();
    await third.close();
  }
});
