import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, startApp, type TestApp, useApp } from '../../../test/harness.ts';
import { ManualClock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { eventually, rejected, StreamClient, streamUrl } from '../../../test/support/stream-client.ts';
import { transact } from '../../db/transaction.ts';

describe('event stream: bad queries', () => {
  const t = useApp();
  let url: string;
  let headers: Record<string, string>;
  before(async () => {
    url = await streamUrl(t);
    headers = (await activeOrganization(t)).headers;
  });

  const cases: [string, string, RegExp][] = [
    ['an unknown type', 'types=message.sen', /unknown event type "message\.sen"/],
    ['an unknown wildcard prefix', 'types=bogus.*', /unknown event type "bogus\.\*"/],
    ['a bare wildcard', 'types=*', /unknown event type/],
    ['a wildcard in the middle', 'types=mess*.sent', /unknown event type/],
    ['an empty types', 'types=', /empty entry/],
    ['an empty entry between commas', 'types=message.*,,cell.online', /empty entry/],
    ['types given twice', 'types=message.sent&types=cell.online', /Give types once/],
    ['an unknown query parameter', 'type=message.sent', /Unknown query parameter "type"/],
    ['a since that is not an event id', 'since=msg_01jd0000000000000000000000', /since must be an event id/],
    ['a since that no event has', `since=${newId('evt', new ManualClock())}`, /not a retained event/],
  ];
  for (const [label, query, reason] of cases) {
    it(`closes with 4400 for ${label}`, async () => {
      const closed = await rejected(`${url}?${query}`, { headers });
      assert.equal(closed.code, 4400);
      assert.match(closed.reason, reason);
      assert.deepEqual(closed.frames, []);
    });
  }

  it('keeps serving after bad queries: a good stream still gets ready', async () => {
    const client = await StreamClient.ready(`${url}?types=cell.*,message.sent`, { headers });
    client.close();
  });

  it('answers a plain HTTP GET (no upgrade) with a 400 problem', async () => {
    const response = await t.app.inject({ url: '/v1/events/stream', headers });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.match(body.detail, /WebSocket/);
  });
});

describe('event stream: slow consumers', () => {
  const BLOB = 'x'.repeat(64 * 1024);

  /** Emits big events until the stream drops every subscriber (the kernel buffers fill first). */
  async function flood(t: TestApp, organizationId: string): Promise<number> {
    let emitted = 0;
    while (t.services.events.feed.subscriberCount() > 0) {
      if (emitted >= 2000) throw new Error('the slow client was never disconnected');
      await transact(t.database.db, async (tx) => {
        for (let i = 0; i < 20; i += 1)
          await t.services.events.emit(tx, { organizationId, type: 'cell.updated', data: { blob: BLOB } });
      });
      emitted += 20;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return emitted;
  }

  it('disconnects a live client that never reads with 4408 instead of buffering without bound', async () => {
    const t = await startApp({ deps: { eventStream: { maxBufferedBytes: 256 * 1024 } } });
    try {
      const url = await streamUrl(t);
      const org = await activeOrganization(t);
      const client = await StreamClient.ready(url, { headers: org.headers });
      client.socket.pause();
      const emitted = await flood(t, org.organizationId);
      // Reading again, the client finds what was flushed before the cut, then the close frame.
      client.socket.resume();
      const closed = await client.closed;
      assert.equal(closed.code, 4408);
      assert.match(closed.reason, /Slow consumer/);
      assert.ok(
        client.events.length < emitted,
        `${client.events.length} of ${emitted} events were sent before the cut`,
      );
    } finally {
      await t.close();
    }
  });

  it('disconnects a client that does not read its replay with 4408 after the drain timeout', async () => {
    const t = await startApp({ deps: { eventStream: { maxBufferedBytes: 64 * 1024, drainTimeoutMs: 200 } } });
    try {
      const url = await streamUrl(t);
      const org = await activeOrganization(t);
      const first = await t.services.events.emit(t.database.db, {
        organizationId: org.organizationId,
        type: 'cell.created',
        data: {},
      });
      await transact(t.database.db, async (tx) => {
        for (let i = 0; i < 400; i += 1)
          await t.services.events.emit(tx, {
            organizationId: org.organizationId,
            type: 'cell.updated',
            data: { blob: BLOB },
          });
      });
      // Subscriptions counted as they are made: on a loaded machine the subscription can come and
      // go (200 ms) between two looks at subscriberCount(). Reading and writing 25 MB of replay
      // took over 5 s on a loaded CI runner, hence the long wait.
      const feed = t.services.events.feed;
      const subscribe = feed.subscribe.bind(feed);
      let subscriptions = 0;
      feed.subscribe = (subscriber) => {
        subscriptions += 1;
        return subscribe(subscriber);
      };
      const client = new StreamClient(`${url}?since=${first.id}`, { headers: org.headers });
      client.socket.once('open', () => client.socket.pause());
      await eventually(() => subscriptions === 1 && feed.subscriberCount() === 0, 'the replay to give up', 60_000);
      client.socket.resume();
      const closed = await client.closed;
      assert.equal(closed.code, 4408);
      assert.match(closed.reason, /replay backlog was not read/);
      assert.ok(!client.frames.some((f) => f.type === 'ready'));
    } finally {
      await t.close();
    }
  });
});
