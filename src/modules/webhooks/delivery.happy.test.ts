import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { createEndpoint, deliveriesOf, emitEvent, verify } from '../../../test/support/webhooks.ts';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;
const DAY = 24 * 3600 * 1000;

describe('webhook delivery', () => {
  let t: TestApp;
  let org: Org;
  let receiver: Receiver;
  // A fresh service and receiver per test, so deliveries of one test never show up in another.
  beforeEach(async () => {
    t = await startApp({ deps: { webhooks: { random: () => 0.5 } } });
    org = await activeOrganization(t);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
    await t.close();
  });
  const deliver = () => t.services.webhookWorker.deliverDue();

  it('POSTs the event envelope signed per Standard Webhooks', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    const event = await emitEvent(t, org.organizationId, 'cell.updated', { id: 'cell_x', display_name: 'Line 1' });
    assert.equal(await deliver(), 1);
    assert.equal(receiver.requests.length, 1);
    const [request] = receiver.requests;
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['webhook-id'], event.id);
    assert.equal(request.headers['webhook-timestamp'], String(Math.floor(t.clock.now().getTime() / 1000)));
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(JSON.parse(request.body), event);
    assert.deepEqual(verify(t, endpoint.secret, request), event);
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.last_status_code, 200);
    assert.equal(delivery.next_attempt_at, null);
    assert.equal(delivery.event_id, event.id);
    assert.equal(delivery.event_type, 'cell.updated');
    assert.equal(await deliver(), 0);
  });

  it("signs each endpoint's deliveries with its own secret", async () => {
    const mine = await createEndpoint(t, org.headers, `${receiver.url}?mine`);
    const other = await createEndpoint(t, org.headers, `${receiver.url}?other`);
    await emitEvent(t, org.organizationId);
    await deliver();
    const to = (query: string) => receiver.requests.find((r) => r.url.endsWith(query))!;
    verify(t, mine.secret, to('?mine'));
    verify(t, other.secret, to('?other'));
    assert.throws(() => verify(t, other.secret, to('?mine')), /signature/i);
  });

  it('delivers only the event types an endpoint asked for, and nothing to disabled or deleted ones', async () => {
    const messages = await createEndpoint(t, org.headers, `${receiver.url}?m`, { event_types: ['message.*'] });
    const cellCreated = await createEndpoint(t, org.headers, `${receiver.url}?c`, {
      event_types: ['cell.created', 'webhook.disabled'],
    });
    await createEndpoint(t, org.headers, `${receiver.url}?off`, { enabled: false });
    const deleted = await createEndpoint(t, org.headers, `${receiver.url}?del`);
    await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${deleted.id}`, headers: org.headers });
    const other = await activeOrganization(t);
    await createEndpoint(t, other.headers, `${receiver.url}?other-org`);

    const sent = await emitEvent(t, org.organizationId, 'message.sent');
    const created = await emitEvent(t, org.organizationId, 'cell.created');
    await emitEvent(t, org.organizationId, 'cell.updated');
    await deliver();
    assert.deepEqual(receiver.requests.map((r) => r.url.split('?')[1]).sort(), ['c', 'm']);
    assert.deepEqual(
      (await deliveriesOf(t, org.headers, messages.id)).deliveries.map((d) => d.event_id),
      [sent.id],
    );
    assert.deepEqual(
      (await deliveriesOf(t, org.headers, cellCreated.id)).deliveries.map((d) => d.event_id),
      [created.id],
    );
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    const rotated = (
      await t.app.inject({ method: 'POST', url: `/v1/webhooks/${endpoint.id}/rotate-secret`, headers: org.headers })
    ).json();
    await emitEvent(t, org.organizationId);
    await deliver();
    const during = receiver.requests[0];
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
    verify(t, rotated.secret, during);
    verify(t, endpoint.secret, during);

    t.clock.advance(DAY);
    await emitEvent(t, org.organizationId);
    await deliver();
    const afterOverlap = receiver.requests[1];
    assert.equal(String(afterOverlap.headers['webhook-signature']).split(' ').length, 1);
    verify(t, rotated.secret, afterOverlap);
    assert.throws(() => verify(t, endpoint.secret, afterOverlap), /signature/i);
  });

  it('keeps a log of deliveries with every attempt, newest first, paginated', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => ({ status: 500 });
    const first = await emitEvent(t, org.organizationId);
    t.clock.advance(1);
    const second = await emitEvent(t, org.organizationId);
    await deliver();
    receiver.respond = () => ({ status: 204 });
    t.clock.advance(5_000);
    await deliver();

    const page1 = await deliveriesOf(t, org.headers, endpoint.id, '?limit=1');
    assert.deepEqual(
      page1.deliveries.map((d) => d.event_id),
      [second.id],
    );
    const page2 = await deliveriesOf(t, org.headers, endpoint.id, `?limit=1&cursor=${page1.next_cursor}`);
    assert.deepEqual(
      page2.deliveries.map((d) => d.event_id),
      [first.id],
    );
    assert.equal(page2.next_cursor, null);
    const [delivery] = page2.deliveries;
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 2);
    assert.equal(delivery.last_status_code, 204);
    assert.equal(delivery.last_error, null);
    assert.ok(typeof delivery.last_latency_ms === 'number' && delivery.last_latency_ms >= 0);
    assert.deepEqual(
      delivery.attempt_history.map((a) => [a.status_code, a.error]),
      [
        [500, 'HTTP 500'],
        [204, null],
      ],
    );
    assert.equal(delivery.attempt_history[1].attempted_at, t.clock.now().toISOString());
  });

  it('retries a delivery by hand at once, with the same webhook-id', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    const event = await emitEvent(t, org.organizationId);
    await deliver();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    const retry = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`,
      headers: org.headers,
    });
    assert.equal(retry.statusCode, 202);
    assert.equal(retry.json().status, 'pending');
    assert.equal(retry.json().next_attempt_at, t.clock.now().toISOString());
    assert.equal(await deliver(), 1);
    assert.deepEqual(
      receiver.requests.map((r) => r.headers['webhook-id']),
      [event.id, event.id],
    );
    const [after] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(after.status, 'succeeded');
    assert.equal(after.attempts, 2);
  });

  it('refuses a manual retry while the endpoint is disabled (409)', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    await emitEvent(t, org.organizationId);
    await deliver();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${endpoint.id}`,
      headers: org.headers,
      payload: { enabled: false },
    });
    const retry = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`,
      headers: org.headers,
    });
    expectProblem(retry, 409, 'conflict');
    const other = await activeOrganization(t);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`,
        headers: other.headers,
      }),
      404,
      'not_found',
    );
  });

  it('holds the deliveries of a disabled endpoint until it is enabled again; a deleted one abandons them', async () => {
    const paused = await createEndpoint(t, org.headers, `${receiver.url}?paused`);
    const removed = await createEndpoint(t, org.headers, `${receiver.url}?removed`);
    const event = await emitEvent(t, org.organizationId);
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${paused.id}`,
      headers: org.headers,
      payload: { enabled: false },
    });
    await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${removed.id}`, headers: org.headers });
    assert.equal(await deliver(), 0);
    assert.equal(receiver.requests.length, 0);

    await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${paused.id}`,
      headers: org.headers,
      payload: { enabled: true },
    });
    assert.equal(await deliver(), 1);
    assert.deepEqual(
      receiver.requests.map((r) => r.headers['webhook-id']),
      [event.id],
    );
  });
});

describe('the deliveries log', () => {
  it('forgets finished deliveries after 30 days and keeps queued ones', async () => {
    const t = await startApp({ deps: { webhooks: { random: () => 0.5 } } });
    const receiver = await startReceiver();
    try {
      const org = await activeOrganization(t);
      const ok = await createEndpoint(t, org.headers, `${receiver.url}?ok`);
      const paused = await createEndpoint(t, org.headers, `${receiver.url}?paused`);
      await emitEvent(t, org.organizationId);
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/webhooks/${paused.id}`,
        headers: org.headers,
        payload: { enabled: false },
      });
      await t.services.webhookWorker.deliverDue();
      t.clock.advance(30 * 24 * 3600 * 1000);
      assert.equal(await t.services.webhooks.prune(), 0, 'exactly 30 days old is kept');
      t.clock.advance(1);
      assert.equal(await t.services.webhooks.prune(), 1);
      assert.deepEqual((await deliveriesOf(t, org.headers, ok.id)).deliveries, []);
      assert.equal((await deliveriesOf(t, org.headers, paused.id)).deliveries.length, 1);
    } finally {
      await receiver.stop();
      await t.close();
    }
  });
});
