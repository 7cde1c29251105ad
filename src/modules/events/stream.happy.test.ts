import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, startApp, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { eventually, StreamClient, streamUrl, withStream } from '../../../test/support/stream-client.ts';

async function rename(t: TestApp, headers: Record<string, string>, cellId: string, name: string) {
  const response = await t.app.inject({
    method: 'PATCH',
    url: `/v1/cells/${cellId}`,
    headers,
    payload: { display_name: name },
  });
  assert.equal(response.statusCode, 200, response.body);
}

/** The organization's event ids in commit (seq) order, straight from the outbox. */
async function outboxIds(t: TestApp, organizationId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select('id')
    .where('organization_id', '=', organizationId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.id);
}

describe('event stream: live, replay, filters', () => {
  let t: TestApp;
  let url: string;
  withStream((app, streamAt) => {
    t = app;
    url = streamAt;
  });

  it('sends ready, then a cell.created event with the full envelope when a cell is created', async () => {
    const org = await activeOrganization(t);
    const client = await StreamClient.ready(url, { headers: org.headers });
    assert.deepEqual(client.frames, [{ type: 'ready' }]);
    const cell = await createCell(t, org.headers, 'Front desk');
    const [event] = await client.eventCount(1);
    assert.match(event.id, /^evt_[0-9a-z]{26}$/);
    assert.equal(event.type, 'cell.created');
    assert.equal(event.organization_id, org.organizationId);
    assert.equal(event.created_at, t.clock.now().toISOString());
    assert.deepEqual(event.data, cell);
    client.close();
  });

  it('replays the events after since, then goes live, with no gap and no duplicate while events keep committing', async () => {
    const org = await activeOrganization(t);
    const earlier = (await outboxIds(t, org.organizationId)).length; // the harness's billing grant
    const cell = await createCell(t, org.headers);
    for (let i = 0; i < 5; i += 1) await rename(t, org.headers, cell.id, `before ${i}`);
    const since = (await outboxIds(t, org.organizationId))[earlier];
    // Events keep committing while the client connects, replays and switches to live.
    const writer = (async () => {
      for (let i = 0; i < 40; i += 1) await rename(t, org.headers, cell.id, `during ${i}`);
    })();
    const client = new StreamClient(`${url}?since=${since}`, { headers: org.headers });
    await writer;
    const expected = (await outboxIds(t, org.organizationId)).slice(earlier + 1);
    assert.equal(expected.length, 45);
    await client.eventCount(45);
    await new Promise((resolve) => setTimeout(resolve, 50)); // a duplicate would arrive right behind
    assert.deepEqual(
      client.events.map((e) => e.id),
      expected,
    );
    const ready = client.frames.findIndex((f) => f.type === 'ready');
    assert.ok(ready >= 5, `the 5 historical events precede ready (ready at ${ready})`);
    client.close();
  });

  it('replays nothing and goes live when since is the latest event', async () => {
    const org = await activeOrganization(t);
    await createCell(t, org.headers);
    const [latest] = (await outboxIds(t, org.organizationId)).slice(-1);
    const client = await StreamClient.ready(`${url}?since=${latest}`, { headers: org.headers });
    assert.deepEqual(client.frames, [{ type: 'ready' }]);
    await createCell(t, org.headers);
    const events = await client.eventCount(1);
    assert.equal(events[0].type, 'cell.created');
    client.close();
  });

  it('filters by exact type and by prefix wildcard, live and in replay', async () => {
    const org = await activeOrganization(t);
    const first = await createCell(t, org.headers);
    const [since] = await outboxIds(t, org.organizationId);
    await rename(t, org.headers, first.id, 'renamed before');
    const updatedOnly = await StreamClient.ready(`${url}?since=${since}&types=cell.updated`, { headers: org.headers });
    const wildcard = await StreamClient.ready(`${url}?types=message.*,cell.*`, { headers: org.headers });
    const messagesOnly = await StreamClient.ready(`${url}?types=message.*`, { headers: org.headers });
    await createCell(t, org.headers);
    await rename(t, org.headers, first.id, 'renamed after');
    await updatedOnly.eventCount(2);
    await wildcard.eventCount(2);
    assert.deepEqual(
      updatedOnly.events.map((e) => [e.type, e.data.display_name]),
      [
        ['cell.updated', 'renamed before'],
        ['cell.updated', 'renamed after'],
      ],
    );
    assert.deepEqual(
      wildcard.events.map((e) => e.type),
      ['cell.created', 'cell.updated'],
    );
    assert.deepEqual(messagesOnly.events, []);
    for (const c of [updatedOnly, wildcard, messagesOnly]) c.close();
  });

  it('accepts the key as the bearer.<key> subprotocol and echoes the subprotocol', async () => {
    const org = await activeOrganization(t);
    const client = await StreamClient.ready(url, { protocols: [`bearer.${org.apiKey}`] });
    assert.equal(client.socket.protocol, `bearer.${org.apiKey}`);
    await createCell(t, org.headers);
    await client.eventCount(1);
    client.close();
  });

  it("keeps organizations apart: a client sees only its own organization's events", async () => {
    const a = await activeOrganization(t);
    const b = await activeOrganization(t);
    const clientA = await StreamClient.ready(url, { headers: a.headers });
    const clientB = await StreamClient.ready(url, { headers: b.headers });
    await createCell(t, b.headers, 'B line');
    await createCell(t, a.headers, 'A line');
    await clientA.eventCount(1);
    await clientB.eventCount(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      clientA.events.map((e) => [e.organization_id, e.data.display_name]),
      [[a.organizationId, 'A line']],
    );
    assert.deepEqual(
      clientB.events.map((e) => [e.organization_id, e.data.display_name]),
      [[b.organizationId, 'B line']],
    );
    clientA.close();
    clientB.close();
  });

  it('fans every event out to 50 clients of one organization, each exactly once and in order', async () => {
    const org = await activeOrganization(t);
    const earlier = (await outboxIds(t, org.organizationId)).length; // the harness's billing grant
    const clients = await Promise.all(
      Array.from({ length: 50 }, () => StreamClient.ready(url, { headers: org.headers })),
    );
    const cell = await createCell(t, org.headers);
    for (let i = 0; i < 5; i += 1) await rename(t, org.headers, cell.id, `n${i}`);
    const expected = (await outboxIds(t, org.organizationId)).slice(earlier);
    for (const client of clients) {
      await client.eventCount(6);
      assert.deepEqual(
        client.events.map((e) => e.id),
        expected,
      );
    }
    clients.forEach((c) => c.close());
  });
});

describe('event stream: pings', () => {
  it('pings on the configured interval and drops a client that stops answering', async () => {
    // A client whose pong is later than one interval is dropped: on a loaded CI runner a pong can
    // take longer than 100 ms, so the interval leaves room (a second; 30 s in production).
    const t = await startApp({ deps: { eventStream: { pingIntervalMs: 1000 } } });
    try {
      const url = await streamUrl(t);
      const org = await activeOrganization(t);
      const client = await StreamClient.ready(url, { headers: org.headers });
      await client.until(() => client.pings >= 2, 'two pings', 15_000);
      assert.equal(t.services.events.feed.subscriberCount(), 1);
      // ws answers pings automatically; a paused socket reads (and answers) nothing.
      client.socket.pause();
      await eventually(() => t.services.events.feed.subscriberCount() === 0, 'the silent client to be dropped');
    } finally {
      await t.close();
    }
  });
});

describe('event stream: server drain', () => {
  it('closes every stream with 1001 when the app closes', async () => {
    const t = await startApp();
    const url = await streamUrl(t);
    const org = await activeOrganization(t);
    const client = await StreamClient.ready(url, { headers: org.headers });
    await t.close();
    const closed = await client.closed;
    assert.equal(closed.code, 1001);
    assert.match(closed.reason, /shutting down/);
  });
});
