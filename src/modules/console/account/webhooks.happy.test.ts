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
  page as get,
  post,
  signedInOrganization,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';
import { page, textOf } from '../../../../test/support/page.ts';

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

    const response = await get(t, org, '/console/webhooks');
    assert.equal(response.statusCode, 200);
    const webhooks = page(response);
    assert.equal(webhooks.document.title, 'Webhooks — Cellgate Console');
    webhooks.getByRole('link', { name: 'Webhooks', current: 'page' });
    const [first, second] = webhooks.getAllByRole('article').map((article) => webhooks.within(article));
    // Newest first: the disabled endpoint, then the one for messages with its delivery.
    first.getByRole('heading', { level: 2, name: `${receiver.url}?off` });
    first.getByText('Disabled');
    first.getByText(/^No deliveries yet/);
    second.getByRole('heading', { level: 2, name: `${receiver.url}?messages` });
    assert.equal(second.definition('Endpoint ID'), messages.id);
    assert.equal(second.definition('Events'), 'message.*');
    second.getByText('Enabled');
    const [delivery] = second.rows(`Recent deliveries to ${receiver.url}?messages, newest first`);
    assert.match(delivery[4], /^2\d{3}-\d\d-\d\d /);
    assert.deepEqual(delivery.with(4, '<time>'), [
      `message.sent ${event.id}`,
      '✓ Delivered',
      '1',
      'HTTP 200',
      '<time>',
      '',
    ]);
    const detail = second.href(/^The message\.sent delivery dlv_\w+: request and responses$/);
    assert.match(detail, new RegExp(`^/console/webhooks/${messages.id}/deliveries/dlv_\\w+$`));
    assert.equal(second.queryByRole('button', { name: /^Retry/ }), null, 'no retry for a delivered event');
  });

  it('retries a delivery that gave up: it is queued again and then delivered', async () => {
    const { endpoint } = await failedDelivery(t, org, receiver);
    const [gaveUp] = await giveUp(t, org, endpoint.id);
    assert.equal(gaveUp.attempts, 8);
    org = await signedInOrganization(t, org); // the schedule outlived the 12-hour session
    const before = page(await get(t, org, '/console/webhooks'));
    const [gone] = before.rows(/^Recent deliveries to /);
    assert.deepEqual([gone[1], gone[3]], ['✕ Gave up', 'HTTP 500']);
    const action = `/console/webhooks/${endpoint.id}/deliveries/${gaveUp.id}/retry`;
    const retry = before.getByRole<HTMLButtonElement>('button', {
      name: `Retry the message.received delivery ${gaveUp.id}`,
    });
    assert.equal(retry.form?.getAttribute('action'), action);

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
    const after = page(await get(t, org, '/console/webhooks?notice=retried'));
    assert.match(textOf(after.getByRole('status')), /^Delivery queued/);
    assert.equal(after.rows(/^Recent deliveries to /)[0][1], '✓ Delivered');
  });

  it("shows an endpoint's whole delivery log, and a retry there returns to it", async () => {
    const { endpoint, delivery } = await failedDelivery(t, org, receiver);
    receiver.respond = () => ({ status: 200 });
    for (let i = 0; i < 5; i++) await emitEvent(t, org.organizationId, 'cell.updated');
    await t.services.webhookWorker.deliverDue();
    const list = page(await get(t, org, '/console/webhooks'));
    assert.equal(list.rows(/^Recent deliveries to /).length, 5, 'five recent deliveries');
    assert.equal(list.href('All deliveries to this endpoint'), `/console/webhooks/${endpoint.id}`);

    const log = await get(t, org, `/console/webhooks/${endpoint.id}`);
    assert.equal(log.statusCode, 200);
    const all = page(log);
    assert.equal(all.rows('Deliveries to this endpoint, newest first').length, 6);
    all.getByRole('heading', { level: 1, name: receiver.url });
    const retried = await post(t, org, `/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, {
      next: `/console/webhooks/${endpoint.id}`,
    });
    assert.equal(retried.headers.location, `/console/webhooks/${endpoint.id}?notice=retried`);
  });

  it('adds an endpoint from the page and shows its signing secret once', async () => {
    const clientId = page(await get(t, org, '/console/webhooks')).hidden('client_id');
    assert.ok(clientId);
    const fields = {
      client_id: clientId,
      url: `${receiver.url}?console`,
      'event:message.*': 'on',
      'event:billing.*': 'on',
    };
    const created = await post(t, org, '/console/webhooks', fields);
    assert.equal(created.statusCode, 201, created.body);
    const added = page(created);
    const secret = added.valueOf('Signing secret');
    assert.match(secret, /^whsec_/, 'the secret is shown');
    added.getByText('Copy it now: it will not be shown again.');
    assert.equal(added.definition('Events'), 'message.*billing.*');

    // The same form sent again adds nothing; the secret is never shown again.
    const again = await post(t, org, '/console/webhooks', fields);
    assert.equal(again.statusCode, 200);
    page(again).getByText(/already added/);
    for (const body of [again.body, (await get(t, org, '/console/webhooks')).body]) assert.ok(!body.includes(secret));
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
    const body = page(await get(t, org, '/console/webhooks?notice=disabled'));
    assert.match(textOf(body.getByRole('status')), /^Endpoint disabled/);
    assert.equal(body.rows(/^Recent deliveries to /)[0][5], 'Enable the endpoint to retry');
    assert.equal(body.queryByRole('button', { name: /^Retry/ }), null);
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
