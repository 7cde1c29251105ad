// The outbox's order is commit order: an event whose transaction took its seq first but commits
// last must not be skipped by a reader that has already moved past a later seq.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, useApp } from '../../../test/harness.ts';
import { StreamClient, streamUrl } from '../../../test/support/stream-client.ts';
import { atCommit, transact } from '../../db/transaction.ts';

describe('event order across concurrent transactions', () => {
  const t = useApp();

  it('holds a second emitting transaction until the first commits, so no event is skipped', async () => {
    const org = await activeOrganization(t);
    const client = await StreamClient.ready(await streamUrl(t), { headers: org.headers });
    const emit = (tx: Parameters<typeof t.services.events.emit>[0], name: string) =>
      t.services.events.emit(tx, { organizationId: org.organizationId, type: 'cell.updated', data: { name } });

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstEmitted!: () => void;
    const emitted = new Promise<void>((resolve) => (firstEmitted = resolve));
    const first = transact(t.database.db, async (tx) => {
      await emit(tx, 'first');
      // Runs after the event's own write (the outbox lock is held), before the commit.
      atCommit(tx, async () => {
        firstEmitted();
        await gate;
      });
    });
    await emitted;
    let secondDone = false;
    const second = transact(t.database.db, (tx) => emit(tx, 'second')).then(() => {
      secondDone = true;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(secondDone, false, 'the second emitting transaction waits for the first');
    } finally {
      release();
      await Promise.all([first, second]);
    }

    await client.eventCount(2);
    assert.deepEqual(
      client.events.map((e) => e.data.name),
      ['first', 'second'],
    );
    client.close();
  });
});
