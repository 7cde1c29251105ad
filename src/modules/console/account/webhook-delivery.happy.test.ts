// The console's delivery page (issue 26 §4): what each attempt sent (headers, the signed body)
// and what came back (status and the first 4 KiB of the body); and "Send a test event", a
// webhook.test delivery to one endpoint that is no event of the organization.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../../../../test/harness.ts';
import { eventsOf } from '../../../../test/support/cells.ts';
import { createEndpoint, deliveriesOf, emitEvent, verify } from '../../../../test/support/webhooks.ts';
import type { Receiver } from '../../../../test/support/webhook-receiver.ts';
import {
  eachWithReceiver,
  page as get,
  post,
  signedInOrganization,
  type SignedInOrg,
} from '../../../../test/support/console-account.ts';
import { page } from '../../../../test/support/page.ts';

const deliveryUrl = (webhookId: string, deliveryId: string) =>
  `/console/webhooks/${webhookId}/deliveries/${deliveryId}`;

describe('console webhooks: a delivery and a test event', () => {
  let t: TestApp;
  let org: SignedInOrg;
  let receiver: Receiver;
  eachWithReceiver((app, signedIn, started) => {
    [t, org, receiver] = [app, signedIn, started];
  });

  it("shows a delivery's request headers and body, and each attempt's response status and body", async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    const answers = [
      { status: 503, body: '<h1>upstream & down</h1>' },
      { status: 200, body: `{"ok":true,"pad":"${'x'.repeat(10_000)}"}` },
    ];
    receiver.respond = () => answers.shift() ?? { status: 200 };
    const event = await emitEvent(t, org.organizationId, 'cell.updated', { id: 'cell_x', display_name: 'Line 1' });
    await t.services.webhookWorker.deliverDue();
    t.clock.advance(6_000);
    await t.services.webhookWorker.deliverDue();
    const [delivery] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    assert.equal(delivery.status, 'succeeded');

    const list = page(await get(t, org, `/console/webhooks/${endpoint.id}`));
    const detail = list.href(`The cell.updated delivery ${delivery.id}: request and responses`);
    assert.equal(detail, deliveryUrl(endpoint.id, delivery.id));

    const shown = await get(t, org, detail);
    assert.equal(shown.statusCode, 200, shown.body);
    const deliveryPage = page(shown);
    deliveryPage.getByRole('heading', { level: 1, name: 'cell.updated delivery' });
    assert.equal(deliveryPage.definition('Event ID (webhook-id)'), event.id);
    // The signed body, pretty-printed, as the receiver got it.
    assert.match(deliveryPage.getByLabelText('Request body').textContent ?? '', /\n {4}"display_name": "Line 1"\n/);
    assert.deepEqual(JSON.parse(receiver.requests[0].body), event);
    // Each attempt's headers are the ones sent, signature and timestamp included.
    const attempts = deliveryPage.getAllByRole('region', { name: /^Attempt \d, / }).map(deliveryPage.within);
    assert.equal(attempts.length, 2);
    receiver.requests.forEach((request, i) => {
      assert.equal(
        attempts[i].definition('webhook-signature'),
        request.headers['webhook-signature'],
        `attempt ${i + 1}`,
      );
      assert.equal(attempts[i].definition('webhook-timestamp'), request.headers['webhook-timestamp']);
      assert.equal(attempts[i].definition('webhook-id'), event.id);
    });
    assert.notEqual(
      receiver.requests[0].headers['webhook-timestamp'],
      receiver.requests[1].headers['webhook-timestamp'],
    );
    // The responses: status and body, escaped, the long one cut at 4 KiB.
    attempts[0].getByText('HTTP 503');
    assert.ok(shown.body.includes('&#60;h1&#62;upstream &#38; down&#60;/h1&#62;'), 'the response body, escaped');
    assert.equal(attempts[0].getByLabelText('Response body (the first 4 KiB)').textContent, '<h1>upstream & down</h1>');
    attempts[1].getByText('HTTP 200');
    const kept = attempts[1].getByLabelText('Response body (the first 4 KiB)').textContent ?? '';
    assert.equal(kept.length, 4096);
    assert.ok(kept.startsWith('{"ok":true,"pad":"xxx'));
  });

  it('says when no response came, and shows a queued delivery before its first attempt', async () => {
    const endpoint = await createEndpoint(t, org.headers, receiver.url);
    await emitEvent(t, org.organizationId, 'cell.updated');
    const [queued] = (await deliveriesOf(t, org.headers, endpoint.id)).deliveries;
    page(await get(t, org, deliveryUrl(endpoint.id, queued.id))).getByText('No attempt yet: it is queued.');
    receiver.respond = () => 'reset';
    await t.services.webhookWorker.deliverDue();
    const shown = page(await get(t, org, deliveryUrl(endpoint.id, queued.id)));
    const attempt = shown.section(/^Attempt 1, /);
    attempt.getByText(/^No response: /);
    assert.match(attempt.definition('webhook-signature'), /^v1,/);
  });

  it('sends a test event to one endpoint, signed with its secret, outside the event stream', async () => {
    const tested = await createEndpoint(t, org.headers, `${receiver.url}?tested`, { event_types: ['message.*'] });
    await createEndpoint(t, org.headers, `${receiver.url}?other`);
    const endpoints = page(await get(t, org, '/console/webhooks'));
    const test = endpoints.getByRole<HTMLButtonElement>('button', {
      name: `Send a test event to the endpoint ${receiver.url}?tested`,
    });
    assert.equal(test.form?.getAttribute('action'), `/console/webhooks/${tested.id}/test`);

    const sent = await post(t, org, `/console/webhooks/${tested.id}/test`, { next: `/console/webhooks/${tested.id}` });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(sent.headers.location, `/console/webhooks/${tested.id}?notice=tested`);
    const noticed = page(await get(t, org, sent.headers.location as string));
    noticed.getByText(/Test event queued/);

    assert.equal(await t.services.webhookWorker.deliverDue(), 1);
    assert.equal(receiver.requests.length, 1);
    const [request] = receiver.requests;
    assert.ok(request.url.endsWith('?tested'));
    const event = verify(t, tested.secret, request) as {
      id: string;
      type: string;
      organization_id: string;
      data: unknown;
    };
    assert.equal(event.type, 'webhook.test');
    assert.equal(event.organization_id, org.organizationId);
    assert.deepEqual((event.data as { webhook_id: string }).webhook_id, tested.id);
    assert.deepEqual(await eventsOf(t, 'webhook.test'), [], 'not an event of the organization');
    const [delivery] = (await deliveriesOf(t, org.headers, tested.id)).deliveries;
    assert.deepEqual([delivery.event_type, delivery.status], ['webhook.test', 'succeeded']);
  });
});

describe('console webhooks: the delivery page and the test button refuse', () => {
  let t: TestApp;
  let org: SignedInOrg;
  let other: SignedInOrg;
  let mine: { id: string };
  let myDelivery: string;
  let theirs: { id: string };
  let theirDelivery: string;
  beforeEach(async () => {
    t = await startApp();
    org = await signedInOrganization(t);
    other = await signedInOrganization(t);
    mine = await createEndpoint(t, org.headers, 'https://mine.example.com/');
    theirs = await createEndpoint(t, other.headers, 'https://theirs.example.com/');
    await emitEvent(t, org.organizationId);
    await emitEvent(t, other.organizationId);
    myDelivery = (await deliveriesOf(t, org.headers, mine.id)).deliveries[0].id;
    theirDelivery = (await deliveriesOf(t, other.headers, theirs.id)).deliveries[0].id;
  });
  afterEach(() => t.close());

  it("another organization's endpoint or delivery is 404, and nothing is queued for it", async () => {
    for (const url of [
      deliveryUrl(theirs.id, theirDelivery),
      deliveryUrl(mine.id, theirDelivery),
      deliveryUrl(mine.id, 'dlv_01jzzzzzzzzzzzzzzzzzzzzzzz'),
      deliveryUrl('whk_01jzzzzzzzzzzzzzzzzzzzzzzz', myDelivery),
    ]) {
      const response = await get(t, org, url);
      assert.equal(response.statusCode, 404, url);
      page(response).getByText(/does not exist or belongs to another organization/);
    }
    for (const id of [theirs.id, 'whk_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
      const response = await post(t, org, `/console/webhooks/${id}/test`);
      assert.equal(response.statusCode, 404, id);
    }
    assert.equal((await deliveriesOf(t, other.headers, theirs.id)).deliveries.length, 1);
  });

  it('a test event needs the CSRF token and an enabled endpoint', async () => {
    const noToken = await post(t, org, `/console/webhooks/${mine.id}/test`, { csrf_token: '' });
    assert.equal(noToken.statusCode, 403);
    const wrongToken = await post(t, org, `/console/webhooks/${mine.id}/test`, { csrf_token: other.session.csrf });
    assert.equal(wrongToken.statusCode, 403);
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${mine.id}`,
      headers: org.headers,
      payload: { enabled: false },
    });
    assert.equal(disabled.statusCode, 200);
    const refused = await post(t, org, `/console/webhooks/${mine.id}/test`);
    assert.equal(refused.statusCode, 409);
    page(refused).getByText(/enable it before testing it/);
    const endpoint = page(await get(t, org, `/console/webhooks/${mine.id}`));
    assert.equal(endpoint.queryByRole('button', { name: /^Send a test event/ }), null);
    assert.equal((await deliveriesOf(t, org.headers, mine.id)).deliveries.length, 1, 'no test delivery queued');
  });
});
