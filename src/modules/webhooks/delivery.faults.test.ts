import { afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, startApp, type TestApp, useApp } from '../../../test/harness.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../../test/support/webhooks.ts';
import { Receiver, startReceiver } from '../../../test/support/webhook-receiver.ts';
import type { Lookup } from '../../lib/ssrf.ts';
import type { EgressRequest } from './egress.ts';
import { RETRY_DELAYS_MS } from './schedule.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;
const DAY = 24 * 3600 * 1000;
const RECEIVER_TIMEOUT_MS = 1_000;

describe('webhook delivery when the receiver misbehaves', () => {
  let t: TestApp;
  let org: Org;
  let receiver: Receiver;
  // A fresh service and receiver per test: retries left by one test must not fall due in another.
  beforeEach(async () => {
    // No jitter (random 0.5 is the middle of ±10%) so the schedule is exact; a short timeout, yet
    // long enough that a loaded machine's 500 is never mistaken for a hang.
    t = await startApp({ deps: { webhooks: { random: () => 0.5, timeoutMs: RECEIVER_TIMEOUT_MS } } });
    org = await activeOrganization(t);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
    await t.close();
  });
  const deliver = () => t.services.webhookWorker.deliverDue();
  const webhook = async (id: string) =>
    (await t.app.inject({ url: `/v1/webhooks/${id}`, headers: org.headers })).json();
  const disabledEvents = async (webhookId: string) =>
    (await t.services.events.readAfter(0, 10_000)).filter(
      (e) => e.envelope.type === 'webhook.disabled' && e.envelope.data.id === webhookId,
    );

  it('gives up on a receiver that does not answer within the timeout and retries later', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => 'hang';
    await emitEvent(t, org.organizationId);
    await deliver();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'retrying');
    assert.equal(delivery.last_status_code, null);
    assert.match(delivery.last_error ?? '', /^timeout/);
    assert.ok((delivery.last_latency_ms ?? 0) >= RECEIVER_TIMEOUT_MS);
    assert.equal(delivery.next_attempt_at, new Date(t.clock.now().getTime() + 5_000).toISOString());
  });

  it('retries a 500 at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then marks the delivery failed', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => ({ status: 500 });
    const event = await emitEvent(t, org.organizationId);
    assert.equal(await deliver(), 1);
    for (const delay of RETRY_DELAYS_MS) {
      t.clock.advance(delay - 1);
      assert.equal(await deliver(), 0, `nothing is due 1 ms before the ${delay} ms retry`);
      t.clock.advance(1);
      assert.equal(await deliver(), 1);
    }
    t.clock.advance(DAY);
    assert.equal(await deliver(), 0);
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts, 8);
    assert.equal(delivery.next_attempt_at, null);
    assert.equal(delivery.attempt_history.length, 8);
    assert.ok(delivery.attempt_history.every((a) => a.status_code === 500));
    assert.deepEqual(new Set(receiver.requests.map((r) => r.headers['webhook-id'])), new Set([event.id]));
    // About 28 hours of failures: the endpoint stays enabled (5 days disables it).
    assert.equal((await webhook(endpoint.id)).enabled, true);
  });

  it('disables the endpoint at once on 410 Gone and emits webhook.disabled', async () => {
    const gone = await createEndpoint(t, org.headers, `${receiver.url}?gone`, { event_types: ['cell.*'] });
    const watcher = await createEndpoint(t, org.headers, `${receiver.url}?watch`, {
      event_types: ['webhook.disabled'],
    });
    receiver.respond = (r) => (r.url.endsWith('?gone') ? { status: 410 } : { status: 200 });
    await emitEvent(t, org.organizationId);
    await deliver();

    const view = await webhook(gone.id);
    assert.equal(view.enabled, false);
    assert.match(view.disabled_reason, /410/);
    const [delivery] = (await deliveriesOf(t, org.headers, gone.id)).deliveries;
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempts, 1);
    assert.equal((await disabledEvents(gone.id)).length, 1);
    const notice = receiver.requests.find((r) => r.url.endsWith('?watch'));
    assert.ok(notice, 'the watcher received webhook.disabled');
    const envelope = JSON.parse(notice.body);
    assert.equal(envelope.type, 'webhook.disabled');
    assert.deepEqual(envelope.data, view);
    assert.equal(envelope.data.secret, undefined);
    assert.equal((await deliveriesOf(t, org.headers, watcher.id)).deliveries[0].status, 'succeeded');

    // Nothing more is queued for it, and re-enabling clears the reason.
    await emitEvent(t, org.organizationId);
    assert.equal((await deliveriesOf(t, org.headers, gone.id)).deliveries.length, 1);
    const enabled = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${gone.id}`,
      headers: org.headers,
      payload: { enabled: true },
    });
    assert.equal(enabled.json().disabled_reason, null);
    assert.equal(enabled.json().enabled, true);
  });

  it('honours Retry-After (seconds or HTTP date) when it is later than the schedule', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    const start = t.clock.now().getTime();
    const answers = [
      { status: 503, headers: { 'retry-after': '120' } },
      { status: 429, headers: { 'retry-after': new Date(start + 120_000 + 3_600_000).toUTCString() } },
      { status: 503, headers: { 'retry-after': '1' } },
    ];
    receiver.respond = () => answers[receiver.requests.length - 1] ?? { status: 200 };
    await emitEvent(t, org.organizationId);
    const nextAttempt = async () => (await deliveriesOf(t, org.headers, endpoint.id)).deliveries[0].next_attempt_at;

    await deliver();
    assert.equal(await nextAttempt(), new Date(start + 120_000).toISOString(), 'Retry-After: 120 beats the 5 s step');
    t.clock.advance(120_000);
    await deliver();
    assert.equal(
      await nextAttempt(),
      new Date(start + 120_000 + 3_600_000).toISOString(),
      'an HTTP date beats the 5 min step',
    );
    t.clock.advance(3_600_000);
    await deliver();
    assert.equal(
      await nextAttempt(),
      new Date(t.clock.now().getTime() + 30 * 60_000).toISOString(),
      'Retry-After: 1 loses to the 30 min step',
    );
    t.clock.advance(30 * 60_000);
    await deliver();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 4);
  });

  it('disables an endpoint that fails for 5 days, and re-enabling starts a fresh window', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => ({ status: 502 });
    await emitEvent(t, org.organizationId);
    await deliver();
    t.clock.advance(5 * DAY - 1);
    await emitEvent(t, org.organizationId);
    await deliver();
    assert.equal((await webhook(endpoint.id)).enabled, true, 'still inside the window');
    t.clock.advance(1);
    await emitEvent(t, org.organizationId);
    await deliver();
    const view = await webhook(endpoint.id);
    assert.equal(view.enabled, false);
    assert.match(view.disabled_reason, /5 days/);
    assert.equal((await disabledEvents(endpoint.id)).length, 1);

    await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${endpoint.id}`,
      headers: org.headers,
      payload: { enabled: true },
    });
    await deliver();
    assert.equal((await webhook(endpoint.id)).enabled, true, 'one failure after re-enabling does not disable it again');
  });

  it('a success ends the failure window', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => ({ status: 500 });
    await emitEvent(t, org.organizationId);
    await deliver();
    receiver.respond = () => ({ status: 200 });
    t.clock.advance(4 * DAY);
    await emitEvent(t, org.organizationId);
    await deliver();
    receiver.respond = () => ({ status: 500 });
    t.clock.advance(2 * DAY);
    await emitEvent(t, org.organizationId);
    await deliver();
    assert.equal((await webhook(endpoint.id)).enabled, true);
  });

  it('sends again at once on a fresh connection when a reused keep-alive connection is reset', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    await emitEvent(t, org.organizationId);
    await deliver(); // leaves a kept-alive connection in the pool
    receiver.respond = () => (receiver.requests.length === 2 ? 'reset' : { status: 200 });
    const event = await emitEvent(t, org.organizationId);
    await deliver();
    assert.deepEqual(
      receiver.requests.slice(1).map((r) => r.headers['webhook-id']),
      [event.id, event.id],
    );
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 1);
  });

  it('counts a reset on a new connection as a failed attempt', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    receiver.respond = () => 'reset';
    await emitEvent(t, org.organizationId);
    await deliver();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'retrying');
    assert.match(delivery.last_error ?? '', /ECONNRESET|socket hang up/);
    assert.equal(receiver.requests.length, 1);
  });

  it('delivers every event, with the same webhook-id, to a receiver that was down for a stretch', async () => {
    const flaky = await new Receiver().start(0);
    try {
      const endpoint = await createEndpoint(t, org.headers, flaky.url);
      flaky.respond = () => ({ status: 503 });
      const first = await emitEvent(t, org.organizationId, 'cell.updated', { n: 1 });
      await deliver();
      await flaky.stop();
      const later = [
        await emitEvent(t, org.organizationId, 'cell.updated', { n: 2 }),
        await emitEvent(t, org.organizationId, 'cell.updated', { n: 3 }),
      ];
      await deliver();
      t.clock.advance(5_000);
      await deliver();
      const down = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
      assert.ok(
        down.every(
          (d) => d.status === 'retrying' && d.last_status_code === null && /ECONNREFUSED/.test(d.last_error ?? ''),
        ),
        JSON.stringify(down),
      );

      flaky.respond = () => ({ status: 200 });
      await flaky.start();
      t.clock.advance(30 * 60_000);
      await deliver();
      const events = [first, ...later];
      const succeeded = flaky.requests.filter((_, i) => i > 0);
      assert.deepEqual(succeeded.map((r) => r.headers['webhook-id']).sort(), events.map((e) => e.id).sort());
      assert.deepEqual(succeeded.map((r) => JSON.parse(r.body).id).sort(), events.map((e) => e.id).sort());
      assert.equal(flaky.requests[0].headers['webhook-id'], first.id);
      assert.ok((await deliveriesOf(t, org.headers, endpoint.id)).deliveries.every((d) => d.status === 'succeeded'));
    } finally {
      await flaky.stop();
    }
  });
});

describe('webhook delivery behind the URL guard', () => {
  let org: Org;
  const answers: Record<string, string> = { 'hooks.example.com': '93.184.215.14' };
  const lookup: Lookup = async (hostname) => [{ address: answers[hostname], family: 4 }];
  const sent: EgressRequest[] = [];
  const t = useApp({
    env: { CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'false' },
    deps: {
      webhooks: { lookup, egress: async (request) => (sent.push(request), { status: 200, retryAfter: undefined }) },
    },
  });
  before(async () => {
    org = await activeOrganization(t);
  });

  it('connects to the address it checked, and refuses when DNS now points into the private network', async () => {
    const endpoint = await createEndpoint(t, org.headers, 'https://hooks.example.com/in');
    await emitEvent(t, org.organizationId);
    await t.services.webhookWorker.deliverDue();
    assert.equal(sent.length, 1);
    assert.equal(sent[0].url.href, 'https://hooks.example.com/in');
    assert.deepEqual(sent[0].target, { address: '93.184.215.14', family: 4 });

    answers['hooks.example.com'] = '10.0.0.5';
    t.clock.advance(60_000); // past the delivery's DNS cache
    await emitEvent(t, org.organizationId);
    await t.services.webhookWorker.deliverDue();
    assert.equal(sent.length, 1, 'no request to the private address');
    const [latest] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(latest.status, 'retrying');
    assert.match(latest.last_error ?? '', /^forbidden_address/);
  });
});

describe('webhook summary for the agent status', () => {
  it('counts endpoints and those failing or disabled by failures', async () => {
    const t = await startApp({ deps: { webhooks: { random: () => 0.5 } } });
    const receiver = await startReceiver();
    try {
      const org = await activeOrganization(t);
      await createEndpoint(t, org.headers, `${receiver.url}?ok`);
      await createEndpoint(t, org.headers, `${receiver.url}?failing`);
      await createEndpoint(t, org.headers, `${receiver.url}?gone`);
      receiver.respond = (r) =>
        r.url.endsWith('?failing') ? { status: 500 } : r.url.endsWith('?gone') ? { status: 410 } : { status: 200 };
      assert.deepEqual(await t.services.webhooks.summary(org.organizationId), { total: 3, failing: 0 });
      await emitEvent(t, org.organizationId);
      await t.services.webhookWorker.deliverDue();
      assert.deepEqual(await t.services.webhooks.summary(org.organizationId), { total: 3, failing: 2 });
    } finally {
      await receiver.stop();
      await t.close();
    }
  });
});
