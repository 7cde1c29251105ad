// The shared reader across a database outage: a start() that failed (database unreachable) is
// tried again by the next start() instead of leaving the feed dead. (A failed read losing nothing
// is in feed.test.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventFeed, type FeedSource } from './feed.ts';
import type { StreamEvent } from './envelope.ts';
import type { EventRow } from './repository.ts';

class FlakyOutbox implements FeedSource {
  readonly rows: EventRow[] = [];
  down = false;

  add(organizationId: string, count = 1): void {
    for (let i = 0; i < count; i += 1) {
      const seq = this.rows.length + 1;
      this.rows.push({
        seq,
        id: `evt_${seq}`,
        organization_id: organizationId,
        type: 'cell.updated',
        data: '{}',
        created_at: '2026-11-21T12:00:00.000Z',
      });
    }
  }

  private check(): void {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }

  async latestSeq(): Promise<number> {
    this.check();
    return this.rows.length;
  }

  async readAfter(seq: number, limit: number): Promise<EventRow[]> {
    this.check();
    return this.rows.filter((r) => r.seq > seq).slice(0, limit);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EventFeed across a database outage', () => {
  it('tries start() again after a failed one, instead of failing every later read', async () => {
    const outbox = new FlakyOutbox();
    outbox.add('org_a', 2);
    const errors: unknown[] = [];
    const feed = new EventFeed(outbox, (error) => errors.push(error));
    outbox.down = true;
    await assert.rejects(feed.start(), /ECONNREFUSED/);
    outbox.down = false;
    await feed.start();
    const seen: number[] = [];
    assert.equal(
      feed.subscribe({ organizationId: 'org_a', deliver: (event: StreamEvent) => void seen.push(event.seq) }),
      2,
    );
    outbox.add('org_a');
    feed.wake();
    await settle();
    assert.deepEqual(seen, [3]);
    assert.deepEqual(errors, []);
  });
});
