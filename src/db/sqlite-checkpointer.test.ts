// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

describe('SQLite checkpoints on their own thread', () => {
  it('committed pages reach the database file without the writer checkpointing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-checkpoint-'));
    const path = join(dir, 'test.db');
    const database = openDatabase(`sqlite:${path}`);
    try {
      await migrateToLatest(database);
      const before = statSync(path).size;
      // About 2 MB: far below the writer's own autocheckpoint bound (10,000 pages), so only the
      // checkpointer thread can have copied it into the database file.
      const text = 'x'.repeat(1000);
      await database.db.transaction().execute(async (tx) => {
        for (let i = 0; i < 2000; i++) {
          await tx
            .insertInto('dev_outbox')
            .values({
              id: `mail_${i}`,
              to_address: 'checkpoint@example.com',
              subject: 's',
              text,
              created_at: '2026-11-21T12:00:00.000Z',
            })
            .execute();
        }
      });
      const deadline = Date.now() + 5000;
      while (statSync(path).size < before + 1_500_000 && Date.now() < deadline)
        await new Promise((done) => setTimeout(done, 20));
      assert.ok(statSync(path).size >= before + 1_500_000, `database file ${statSync(path).size} bytes, was ${before}`);
      const { n } = await database.db
        .selectFrom('dev_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 2000);
      // close() resolves once the thread has closed its connection too: the last connection's
      // close removes -wal and -shm, so the directory can go at once (the demo removes its own).
      await database.close();
      assert.equal(existsSync(`${path}-wal`), false, '-wal removed by the time close() resolves');
      assert.equal(existsSync(`${path}-shm`), false, '-shm removed by the time close() resolves');
    } finally {
      await database.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
