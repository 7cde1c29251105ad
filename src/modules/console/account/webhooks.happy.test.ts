import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../../../test/harness.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../../../test/support/webhooks.ts';
import type { Receiver } from '../../../../test/support/webhook-receiver.ts';
import {
  eachWithReceiver,
  failedDelivery,
  giveUp,
  latestDelivery,
  page,
  post,
  signedInOrganization,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';

describe('console webhooks', () => {
  let t: TestApp;
  let org: SignedInOrg;
  let receiver: Receiver;
  eachWithReceiver((app, signedIn, started) => {
    [t, org, receiver] = [app, signedIn, started];
  });

  it("lists the endpoints with their events and state, and each one's recent deliveries", async () => {
    const messages = await createEndpoint(t, org.headers, `${receiver.url}?messages`, { event_types: ['message.*'] });
    await createEndpoint(t, org.headers, `${receiver.url}?off`, { enabled: false });
    const event = await emitEvent(t, org.organizationId, 'message.sent');
    await t.services.webhookWorker.deliverDue();

    const response = await page(t, org, '/console/webhooks');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /<title>Webhooks — Cellgate Console<\/title>/);
    assert.match(response.body, /<a href="\/console\/webhooks" aria-current="page">Webhooks<\/a>/);
    const [first, second] = response.body.split('<article class="endpoint"').slice(1);
    // Newest first: the disabled endpoint, then the one for messages with its delivery.
    assert.match(first, /\?off<\/h2>/);
    assert.match(first, /Disabled<\/span>/);
    assert.match(first, /No deliveries yet/);
    assert.match(second, new RegExp(`id="${messages.id}-heading"`));
    assert.match(second, /<span class="tag mono">message\.\*<\/span>/);
    assert.match(second, /✓ <\/span>Enabled<\/span>/);
    assert.match(
      second,
      /<caption>Recent deliveries to http:\/\/127\.0\.0\.1:\d+\/hooks\?messages, newest first<\/caption>/,
    );
    assert.match(
      second,
      new RegExp(
        `<a class="mono" href="[^"]+/deliveries/dlv_\\w+" aria-label="[^"]+">message\\.sent</a><br><span class="small mono">${event.id}</span>`,
      ),
    );
    assert.match(second, /Delivered<\/span>/);
    assert.match(
      second,
      /<td data-label="Attempts">1<\/td>\n<td data-label="Last response"><span class="mono">HTTP 200<\/span><\/td>/,
    );
    assert.match(second, /<time datetime="2\d{3}-\d\d-\d\dT[^"]+">/);
    assert.doesNotMatch(second, /\/retry"/, 'no retry for a delivered event');
  });

  it('retries a delivery that gave up: it is queued again and then delivered', async () => {
    const { endpoint } = await failedDelivery(t, org, receiver);
    const [gaveUp] = await giveUp(t, org, endpoint.id);
    assert.equal(gaveUp.attempts, 8);
    org = await signedInOrganization(t, org); // the schedule outlived the 12-hour session
    const before = (await page(t, org, '/console/webhooks')).body;
    assert.match(before, /✕ <\/span>Gave up<\/span>/);
    assert.match(before, /HTTP 500/);
    const action = `/console/webhooks/${endpoint.id}/deliveries/${gaveUp.id}/retry`;
    assert.match(before, new RegExp(`<form method="post" action="${action}">`));
    assert.match(before, new RegExp(`aria-label="Retry the message\\.received delivery ${gaveUp.id}"`));

    receiver.respond = () => ({ status: 204 });
    const retried = await post(t, org, action, { next: '/console/webhooks' });
    assert.equal(retried.statusCode, 303, retried.body);
    assert.equal(retried.headers.location, '/console/webhooks?notice=retried');
    const queued = await latestDelivery(t, org, endpoint.id);
    assert.equal(queued.status, 'pending');
    assert.equal(queued.next_attempt_at, t.clock.now().toISOString());

    assert.equal(await t.services.webhookWorker.deliverDue(), 1);
    const delivered = await latestDelivery(t, org, endpoint.id);
    assert.equal(delivered.status, 'succeeded');
    assert.equal(delivered.attempts, 9);
    assert.equal(delivered.last_status_code, 204);
    const after = (await page(t, org, '/console/webhooks?notice=retried')).body;
    assert.match(after, /<div class="notice ok" role="status">Delivery queued/);
    assert.match(after, /Delivered<\/span>/);
  });

  it("shows an endpoint's whole delivery log, and a retry there returns to it", async () => {
    const { endpoint, delivery } = await failedDelivery(t, org, receiver);
    receiver.respond = () => ({ status: 200 });
    for (let i = 0; i < 5; i++) await emitEvent(t, org.organizationId, 'cell.updated');
    await t.services.webhookWorker.deliverDue();
    const list = (await page(t, org, '/console/webhooks')).body;
    assert.equal(list.match(/<tr>\n<td data-label="Event"><a class="mono"/g)?.length, 5, 'five recent deliveries');
    assert.match(list, new RegExp(`<a href="/console/webhooks/${endpoint.id}">All deliveries to this endpoint</a>`));

    const log = await page(t, org, `/console/webhooks/${endpoint.id}`);
    assert.equal(log.statusCode, 200);
    assert.equal(log.body.match(/<tr>\n<td data-label="Event"><a class="mono"/g)?.length, 6);
    assert.match(log.body, /<h1 id="whk_[^"]+-heading" class="endpoint-url mono">/);
    const retried = await post(t, org, `/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, {
      next: `/console/webhooks/${endpoint.id}`,
    });
    assert.equal(retried.headers.location, `/console/webhooks/${endpoint.id}?notice=retried`);
  });

  it('adds an endpoint from the page and shows its signing secret once', async () => {
    const form = (await page(t, org, '/console/webhooks')).body;
    const clientId = form.match(/name="client_id" value="([^"]+)"/)?.[1];
    assert.ok(clientId);
    const fields = {
      client_id: clientId,
      url: `${receiver.url}?console`,
      'event:message.*': 'on',
      'event:billing.*': 'on',
    };
    const created = await post(t, org, '/console/webhooks', fields);
    assert.equal(created.statusCode, 201, created.body);
    const secret = created.body.match(
      /<input id="new-secret" class="secret mono" type="text" value="(whsec_[^"]+)" readonly/,
    )?.[1];
    assert.ok(secret, 'the secret is shown');
    assert.match(created.body, /Copy it now: it will not be shown again/);
    assert.match(created.body, /<span class="tag mono">message\.\*<\/span><span class="tag mono">billing\.\*<\/span>/);

    // The same form sent again adds nothing; the secret is never shown again.
    const again = await post(t, org, '/console/webhooks', fields);
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /already added/);
    for (const body of [again.body, (await page(t, org, '/console/webhooks')).body]) assert.ok(!body.includes(secret));
    const { webhooks } = (await t.app.inject({ url: '/v1/webhooks', headers: org.headers })).json();
    assert.equal(webhooks.length, 1);
    assert.deepEqual(webhooks[0].event_types, ['message.*', 'billing.*']);

    // It works: a message event reaches the receiver signed with that secret.
    await emitEvent(t, org.organizationId, 'message.received');
    await t.services.webhookWorker.deliverDue();
    assert.equal(receiver.requests.length, 1);
  });

  it("disables and enables an endpoint; a disabled endpoint's failed delivery waits for it", async () => {
    const { endpoint } = await failedDelivery(t, org, receiver);
    const disabled = await post(t, org, `/console/webhooks/${endpoint.id}/enabled`, {
      enabled: 'false',
      next: '/console/webhooks',
    });
    assert.equal(disabled.headers.location, '/console/webhooks?notice=disabled');
    const body = (await page(t, org, '/console/webhooks?notice=disabled')).body;
    assert.match(body, /Endpoint disabled/);
    assert.match(body, /Enable the endpoint to retry/);
    assert.doesNotMatch(body, /\/retry"/);
    const enabled = await post(t, org, `/console/webhooks/${endpoint.id}/enabled`, {
      enabled: 'true',
      next: '/console/webhooks',
    });
    assert.equal(enabled.headers.location, '/console/webhooks?notice=enabled');
    assert.equal(
      (await t.app.inject({ url: `/v1/webhooks/${endpoint.id}`, headers: org.headers })).json().enabled,
      true,
    );
    assert.equal((await deliveriesOf(t, org.headers, endpoint.id)).deliveries[0].status, 'retrying');
  });
});
