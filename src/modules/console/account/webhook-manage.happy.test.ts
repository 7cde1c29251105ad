// Rotating an endpoint's signing secret and deleting an endpoint from the console: each behind a
// confirmation page; the new secret shown once and accepted by the API's view of the endpoint;
// another organization's endpoint 404; forms without the CSRF token refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { createEndpoint } from '../../../../test/support/webhooks.ts';
import { startReceiver, type Receiver } from '../../../../test/support/webhook-receiver.ts';
import { postForm } from '../../../../test/support/console.ts';
import { page, post, signedInOrganization, type SignedInOrg } from '../../../../test/support/console-account.ts';

describe('console webhook rotation and deletion', () => {
  const t = useApp();
  let org: SignedInOrg;
  let other: SignedInOrg;
  let receiver: Receiver;
  before(async () => {
    org = await signedInOrganization(t);
    other = await signedInOrganization(t);
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.stop();
  });

  const apiEndpoint = (who: SignedInOrg, id: string) =>
    t.app.inject({ url: `/v1/webhooks/${id}`, headers: who.headers });

  it('links Rotate secret and Delete from the endpoint', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?links`);
    const shown = await page(t, org, `/console/webhooks/${endpoint.id}`);
    assert.match(shown.body, new RegExp(`href="/console/webhooks/${endpoint.id}/rotate"[^>]*>Rotate secret</a>`));
    assert.match(shown.body, new RegExp(`href="/console/webhooks/${endpoint.id}/delete"[^>]*>Delete</a>`));
  });

  it('rotates the secret after a confirmation page and shows the new one once, the old one kept for 24 hours', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?rotate`);
    const confirm = await page(t, org, `/console/webhooks/${endpoint.id}/rotate`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /<h1>Rotate the signing secret\?<\/h1>/);
    assert.match(confirm.body, /keeps signing beside it for 24 hours/);
    const rotated = await post(t, org, `/console/webhooks/${endpoint.id}/rotate`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.headers['cache-control'], 'no-store');
    const secret = rotated.body.match(
      /<input id="new-secret" class="secret mono" type="text" value="(whsec_[^"]+)" readonly/,
    )?.[1];
    assert.ok(secret, 'the new secret is shown');
    assert.notEqual(secret, endpoint.secret);
    assert.match(rotated.body, /Copy it now: it will not be shown again\./);
    assert.match(rotated.body, /The previous secret keeps signing until <time datetime="[^"]+">/);
    // Shown once: the endpoint's page does not carry it.
    assert.ok(!(await page(t, org, `/console/webhooks/${endpoint.id}`)).body.includes(secret));
  });

  it('deletes an endpoint after a confirmation page; the API no longer finds it', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?delete`);
    const confirm = await page(t, org, `/console/webhooks/${endpoint.id}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /<h1>Delete this endpoint\?<\/h1>/);
    assert.equal((await apiEndpoint(org, endpoint.id)).statusCode, 200, 'the page alone deletes nothing');
    const deleted = await post(t, org, `/console/webhooks/${endpoint.id}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/console/webhooks?notice=deleted');
    assert.equal((await apiEndpoint(org, endpoint.id)).statusCode, 404);
    assert.match(
      (await page(t, org, '/console/webhooks?notice=deleted')).body,
      /Endpoint deleted: no more events are sent to it\./,
    );
  });

  it('edits the URL and the events; refuses an empty URL, a private address and no events as form errors', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?edit`);
    const form = await page(t, org, `/console/webhooks/${endpoint.id}/edit`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<h2 id="add-endpoint-heading">Edit the endpoint<\/h2>/);
    assert.ok(form.body.includes(`value="${receiver.url}?edit"`), 'the form holds the URL');
    const url = `/console/webhooks/${endpoint.id}/edit`;
    const saved = await post(t, org, url, { url: `${receiver.url}?edited`, 'event:message.*': 'on' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/webhooks/${endpoint.id}?notice=updated`);
    const api = (await apiEndpoint(org, endpoint.id)).json();
    assert.equal(api.url, `${receiver.url}?edited`);
    assert.deepEqual(api.event_types, ['message.*']);

    const empty = await post(t, org, url, { url: '', 'event:*': 'on' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /<p class="field-error" id="webhook-url-error">Enter the URL of your receiver/);
    const none = await post(t, org, url, { url: `${receiver.url}?x` });
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /<p class="field-error" id="event-types-error">Choose at least one kind of event\.<\/p>/);
    const bad = await post(t, org, url, { url: 'not a url', 'event:*': 'on' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="webhook-url-error"/);
    assert.equal((await apiEndpoint(org, endpoint.id)).json().url, `${receiver.url}?edited`, 'refusals change nothing');
  });

  it("answers 404 for another organization's endpoint on both pages and both forms, changing nothing", async () => {
    const theirs = await createEndpoint(t, other.headers, `${receiver.url}?theirs`);
    for (const action of ['edit', 'rotate', 'delete']) {
      assert.equal((await page(t, org, `/console/webhooks/${theirs.id}/${action}`)).statusCode, 404, action);
      assert.equal((await post(t, org, `/console/webhooks/${theirs.id}/${action}`)).statusCode, 404, action);
    }
    assert.equal((await apiEndpoint(other, theirs.id)).statusCode, 200);
  });

  it('refuses both forms without the CSRF token (403) and signed out (401)', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?csrf`);
    for (const action of ['edit', 'rotate', 'delete']) {
      const url = `/console/webhooks/${endpoint.id}/${action}`;
      assert.equal((await postForm(t, url, {}, org.session.headers)).statusCode, 403, action);
      assert.equal((await postForm(t, url, { csrf_token: org.session.csrf })).statusCode, 401, action);
    }
    assert.equal((await apiEndpoint(org, endpoint.id)).statusCode, 200);
  });
});
