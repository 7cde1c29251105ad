// Operator webhooks (contract §11): /v1/admin/webhooks endpoints, signed and delivered like an
// organization's, with the phones' transitions: online, offline, battery low (once per dip),
// unhealthy and recovered; data is the Device of the admin surface.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, claim, queued, report, type Line } from '../../../test/support/messages.ts';
import { createEndpoint, emitEvent, verify } from '../../../test/support/webhooks.ts';
import { startReceiver, type Receiver } from '../../../test/support/webhook-receiver.ts';

let clientIds = 0;

async function operatorEndpoint(t: TestApp, url: string, extra: Record<string, unknown> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/admin/webhooks',
    headers: admin,
    payload: { client_id: `ops-${++clientIds}`, url, ...extra },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string; secret: string; event_types: string[] };
}

describe('operator webhooks: endpoints', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(() => t.close());

  it('creates, replays, reads, lists, updates, rotates and deletes an operator endpoint', async () => {
    const body = { client_id: 'night-pager', url: 'https://ops.example.com/hooks', event_types: ['device.*'] };
    const created = await t.app.inject({ method: 'POST', url: '/v1/admin/webhooks', headers: admin, payload: body });
    assert.equal(created.statusCode, 201, created.body);
    const endpoint = created.json();
    assert.match(endpoint.id, /^whk_/);
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(endpoint.event_types, ['device.*']);
    assert.equal(endpoint.enabled, true);

    const replay = await t.app.inject({ method: 'POST', url: '/v1/admin/webhooks', headers: admin, payload: body });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.json().id, endpoint.id);
    assert.equal(replay.json().secret, undefined);

    const read = await t.app.inject({ url: `/v1/admin/webhooks/${endpoint.id}`, headers: admin });
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().url, 'https://ops.example.com/hooks');
    const list = (await t.app.inject({ url: '/v1/admin/webhooks', headers: admin })).json();
    assert.deepEqual(
      list.webhooks.map((w: { id: string }) => w.id),
      [endpoint.id],
    );

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/webhooks/${endpoint.id}`,
      headers: admin,
      payload: { event_types: ['device.offline', 'device.battery_low'], description: 'pager' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().event_types, ['device.offline', 'device.battery_low']);

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/webhooks/${endpoint.id}/rotate-secret`,
      headers: admin,
    });
    assert.equal(rotated.statusCode, 200);
    assert.notEqual(rotated.json().secret, endpoint.secret);
    assert.ok(rotated.json().previous_secret_expires_at);

    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/admin/webhooks/${endpoint.id}`, headers: admin });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await t.app.inject({ url: `/v1/admin/webhooks/${endpoint.id}`, headers: admin })).statusCode, 404);
  });

  it("keeps the operator's endpoints and an organization's apart", async () => {
    const line = await activeLine(t);
    const mine = await createEndpoint(t, line.org.headers, 'https://org.example.com/hooks');
    const ops = await operatorEndpoint(t, 'https://ops.example.com/hooks');
    assert.equal((await t.app.inject({ url: `/v1/admin/webhooks/${mine.id}`, headers: admin })).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/v1/webhooks/${ops.id}`, headers: line.org.headers })).statusCode, 404);
    const orgList = (await t.app.inject({ url: '/v1/webhooks', headers: line.org.headers })).json();
    assert.deepEqual(
      orgList.webhooks.map((w: { id: string }) => w.id),
      [mine.id],
    );
    // The same client_id is free on each side.
    const sameClientId = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: line.org.headers,
      payload: { client_id: `ops-${clientIds}`, url: 'https://org.example.com/other' },
    });
    assert.equal(sameClientId.statusCode, 201, sameClientId.body);
  });
});

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('operator webhooks: device events', () => {
  let t: TestApp;
  let receiver: Receiver;
  let line: Line;
  beforeEach(async () => {
    t = await startApp({ deps: { webhooks: { random: () => 0.5 } } });
    receiver = await startReceiver();
    line = await activeLine(t);
  });
  afterEach(async () => {
    await receiver.stop();
    await t.close();
  });

  const deliver = () => t.services.webhookWorker.deliverDue();
  const heartbeat = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: line.device.headers, payload });
  /**
   * The events received so far, each verified with `secret`, in the order they happened (by id:
   * ids carry their time). A batch's deliveries run side by side, so they may arrive in any order.
   */
  const received = (secret: string) =>
    receiver.requests
      .map(
        (request) =>
          verify(t, secret, request) as {
            id: string;
            type: string;
            organization_id: null;
            data: Record<string, unknown>;
          },
      )
      .sort(byId);

  it('delivers device.online and device.offline, signed, with the Device as data', async () => {
    const endpoint = await operatorEndpoint(t, receiver.url);
    assert.equal((await heartbeat({ battery_pct: 80, charging: false })).statusCode, 200);
    t.clock.advance(121_000);
    assert.equal(await t.services.devices.markSilentOffline(), 1);
    assert.equal(await deliver(), 2);
    const events = received(endpoint.secret);
    assert.deepEqual(
      events.map((e) => e.type),
      ['device.online', 'device.offline'],
    );
    const [online, offline] = events;
    assert.equal(online.organization_id, null);
    assert.match(online.id, /^evt_/);
    // Each request's webhook-id header names the event its body carries (requests arrive in any order).
    assert.deepEqual(
      receiver.requests.map((request) => request.headers['webhook-id']).sort(),
      events.map((e) => e.id),
    );
    assert.equal(online.data.id, line.device.id);
    assert.equal(online.data.online, true);
    assert.equal(offline.data.online, false);
    assert.equal(offline.data.battery_pct, 80);
    // The Device of the admin surface, field for field.
    const view = (await t.app.inject({ url: `/v1/admin/devices/${line.device.id}`, headers: admin })).json();
    assert.deepEqual(Object.keys(offline.data).sort(), Object.keys(view).sort());
    assert.equal(offline.data.health, 'healthy');

    const deliveries = (
      await t.app.inject({ url: `/v1/admin/webhooks/${endpoint.id}/deliveries`, headers: admin })
    ).json();
    assert.deepEqual(
      deliveries.deliveries.map((d: { event_type: string; status: string }) => [d.event_type, d.status]),
      [
        ['device.offline', 'succeeded'],
        ['device.online', 'succeeded'],
      ],
    );
    const retried = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/webhooks/${endpoint.id}/deliveries/${deliveries.deliveries[0].id}/retry`,
      headers: admin,
    });
    assert.equal(retried.statusCode, 202, retried.body);
    assert.equal(await deliver(), 1);
    assert.equal(receiver.requests.at(-1)?.headers['webhook-id'], offline.id);
  });

  it('sends device.battery_low once per dip below 15 % without charging', async () => {
    const endpoint = await operatorEndpoint(t, receiver.url, { event_types: ['device.battery_low'] });
    for (const beat of [
      { battery_pct: 40, charging: false },
      { battery_pct: 14, charging: true }, // low but charging: no alert
      { battery_pct: 14, charging: false }, // the dip: one alert
      { battery_pct: 9 }, // still the same dip
      { battery_pct: 8, charging: false },
      { charging: true }, // charging ends the dip
      { battery_pct: 12, charging: false }, // a new dip: a second alert
      { battery_pct: 30 }, // back up
      { battery_pct: 15 }, // 15 % is not low
    ]) {
      assert.equal((await heartbeat(beat)).statusCode, 200);
      t.clock.advance(60_000);
    }
    await deliver();
    const events = received(endpoint.secret);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.battery_pct, e.data.charging]),
      [
        ['device.battery_low', 14, false],
        ['device.battery_low', 12, false],
      ],
    );
  });

  it('sends device.unhealthy as a SIM degrades and is quarantined, device.recovered on release', async () => {
    const endpoint = await operatorEndpoint(t, receiver.url, { event_types: ['device.unhealthy', 'device.recovered'] });
    for (let i = 0; i < 5; i++) {
      const message = await queued(t, line, { to: `+1212555${String(7000 + i)}`, body: `try ${i}` });
      const [claimed] = await claim(t, line);
      assert.equal(claimed.id, message.id);
      const response = await report(t, line, message.id, { event: 'failed', error_code: 'generic_failure' });
      assert.equal(response.statusCode, 200, response.body);
      t.clock.advance(1_000);
    }
    const released = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${line.device.id}/release`,
      headers: admin,
      payload: { reason: 'new SIM' },
    });
    assert.equal(released.statusCode, 200, released.body);
    await deliver();
    assert.deepEqual(
      received(endpoint.secret).map((e) => [e.type, e.data.health]),
      [
        ['device.unhealthy', 'degraded'],
        ['device.unhealthy', 'quarantined'],
        ['device.recovered', 'healthy'],
      ],
    );
  });

  it("never crosses: device events reach no organization's endpoint, organization events no operator's", async () => {
    const ops = await operatorEndpoint(t, `${receiver.url}?ops`);
    await createEndpoint(t, line.org.headers, `${receiver.url}?org`);
    await emitEvent(t, line.org.organizationId, 'cell.updated');
    await heartbeat({ battery_pct: 5, charging: false });
    await deliver();
    const to = (query: string) =>
      receiver.requests
        .filter((r) => r.url.endsWith(query))
        .map((r) => JSON.parse(r.body) as { id: string; type: string })
        .sort(byId);
    assert.deepEqual(
      to('?ops').map((e) => e.type),
      ['device.online', 'device.battery_low'],
    );
    // The phone's coming online is the organization's cell.online, not device.online.
    assert.deepEqual(
      to('?org').map((e) => e.type),
      ['cell.updated', 'cell.online'],
    );
    for (const request of receiver.requests.filter((r) => r.url.endsWith('?ops'))) verify(t, ops.secret, request);
  });

  it('disables an operator endpoint that answers 410, with no webhook.disabled to any organization', async () => {
    const endpoint = await operatorEndpoint(t, receiver.url);
    await createEndpoint(t, line.org.headers, `${receiver.url}?org`, { event_types: ['webhook.disabled'] });
    receiver.respond = (request) => (request.url.endsWith('?org') ? { status: 200 } : { status: 410 });
    await heartbeat({ battery_pct: 50 });
    await deliver();
    const read = (await t.app.inject({ url: `/v1/admin/webhooks/${endpoint.id}`, headers: admin })).json();
    assert.equal(read.enabled, false);
    assert.equal(read.disabled_reason, 'The endpoint answered 410 Gone.');
    assert.equal(receiver.requests.filter((r) => r.url.endsWith('?org')).length, 0);
  });
});
