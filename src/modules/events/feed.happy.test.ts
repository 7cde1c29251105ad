// The shared reader on its own, with an in-memory outbox: one read per wake for any number of
// subscribers, coalesced wakes, and a failed read that loses nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventFeed, type FeedSource } from './feed.ts';
import type { StreamEvent } from './envelope.ts';
import type { EventRow } from './repository.ts';

class MemoryOutbox implements FeedSource {
  readonly rows: EventRow[] = [];
  reads = 0;
  failNext = false;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;

  add(organizationId: string, count = 1): void {
    for (let i = 0; i < count; i += 1) {
      const seq = this.rows.length + 1;
      this.rows.push({
        seq,
        id: `evt_${seq}`,
        organization_id: organizationId,
        type: 'cell.updated',
        data: `{"n":${seq}}`,
        created_at: '2026-11-21T12:00:00.000Z',
      });
    }
  }

  /** Holds reads until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = null;
  }

  async latestSeq(): Promise<number> {
    return this.rows.length;
  }

  async readAfter(seq: number, limit: number): Promise<EventRow[]> {
    this.reads += 1;
    await this.gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database unavailable');
    }
    return this.rows.filter((r) => r.seq > seq).slice(0, limit);
  }
}

function subscriber(organizationId: string) {
  const seen: number[] = [];
  return { organizationId, seen, deliver: (event: StreamEvent) => void seen.push(event.seq) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('EventFeed', () => {
  it('reads each batch once and hands every event to every subscriber of its organization', async () => {
    const outbox = new MemoryOutbox();
    outbox.add('org_a', 3); // history before start: not the feed's to deliver
    const feed = new EventFeed(outbox, (error) => assert.fail(String(error)));
    await feed.start();
    const a = Array.from({ length: 200 }, () => subscriber('org_a'));
    const b = subscriber('org_b');
    for (const s of [...a, b]) assert.equal(feed.subscribe(s), 3);
    outbox.add('org_a', 2);
    outbox.add('org_b');
    outbox.add('org_a');
    feed.wake();
    await settle();
    assert.equal(outbox.reads, 1, 'one query for 201 subscribers');
    for (const s of a) assert.deepEqual(s.seen, [4, 5, 7]);
    assert.deepEqual(b.seen, [6]);
  });

  it('coalesces wakes that arrive during a read into one more read', async () => {
    const outbox = new MemoryOutbox();
    const feed = new EventFeed(outbox, () => {});
    await feed.start();
    const s = subscriber('org_a');
    feed.subscribe(s);
    outbox.add('org_a');
    outbox.hold();
    feed.wake();
    outbox.add('org_a');
    for (let i = 0; i < 10; i += 1) feed.wake();
    outbox.release();
    await settle();
    assert.equal(outbox.reads, 2);
    assert.deepEqual(s.seen, [1, 2]);
  });

  it('keeps its place when a read fails; the next wake delivers what the failed read missed', async () => {
    const outbox = new MemoryOutbox();
    const errors: unknown[] = [];
    const feed = new EventFeed(outbox, (error) => errors.push(error));
    await feed.start();
    const s = subscriber('org_a');
    feed.subscribe(s);
    outbox.add('org_a', 2);
    outbox.failNext = true;
    feed.wake();
    await settle();
    assert.equal(errors.length, 1);
    assert.deepEqual(s.seen, []);
    feed.wake();
    await settle();
    assert.deepEqual(s.seen, [1, 2]);
  });

  it('pages through a backlog larger than one batch in order', async () => {
    const outbox = new MemoryOutbox();
    const feed = new EventFeed(outbox, () => {});
    await feed.start();
    const s = subscriber('org_a');
    feed.subscribe(s);
    outbox.add('org_a', 1200);
    feed.wake();
    await settle();
    assert.equal(s.seen.length, 1200);
    assert.ok(s.seen.every((seq, i) => seq === i + 1));
    assert.equal(outbox.reads, 3);
  });

  it('stops delivering to an unsubscribed subscriber', async () => {
    const outbox = new MemoryOutbox();
    const feed = new EventFeed(outbox, () => {});
    await feed.start();
    const s = subscriber('org_a');
    feed.subscribe(s);
    feed.unsubscribe(s);
    assert.equal(feed.subscriberCount(), 0);
    outbox.add('org_a');
    feed.wake();
    await settle();
    assert.deepEqual(s.seen, []);
  });

  it('reads nothing while no one subscribes; the next start() joins a subscriber at the end', async () => {
    const outbox = new MemoryOutbox();
    const feed = new EventFeed(outbox, () => {});
    await feed.start();
    outbox.add('org_a', 700);
    for (let i = 0; i < 5; i += 1) feed.wake();
    await settle();
    assert.equal(outbox.reads, 0);
    await feed.start();
    const s = subscriber('org_a');
    assert.equal(feed.subscribe(s), 700);
    outbox.add('org_a');
    feed.wake();
    await settle();
    assert.deepEqual(s.seen, [701]);
    assert.equal(outbox.reads, 1);
  });

  it('delivers what committed between the end it joined at and its subscription, without another wake', async () => {
    const outbox = new MemoryOutbox();
    const feed = new EventFeed(outbox, () => {});
    await feed.start();
    outbox.add('org_a', 2);
    feed.wake(); // no subscriber: skipped
    const s = subscriber('org_a');
    assert.equal(feed.subscribe(s), 0); // joined without start(): at the old cursor
    await settle();
    assert.deepEqual(s.seen, [1, 2]);
  });
});
