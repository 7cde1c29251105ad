// Rotating an endpoint's signing secret and deleting an endpoint from the console: each behind a
// confirmation page; the new secret shown once and accepted by the API's view of the endpoint;
// another organization's endpoint 404; forms without the CSRF token refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { createEndpoint } from '../../../../test/support/webhooks.ts';
import { startReceiver, type Receiver } from '../../../../test/support/webhook-receiver.ts';
import { postForm } from '../../../../test/support/console.ts';
import { page as get, post, signedInOrganization, type SignedInOrg } from '../../../../test/support/console-account.ts';
import { page } from '../../../../test/support/page.ts';

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
    const shown = page(await get(t, org, `/console/webhooks/${endpoint.id}`));
    const url = `${receiver.url}?links`;
    assert.equal(shown.href(`Rotate secret of the endpoint ${url}`), `/console/webhooks/${endpoint.id}/rotate`);
    assert.equal(shown.href(`Delete the endpoint ${url}`), `/console/webhooks/${endpoint.id}/delete`);
  });

  it('rotates the secret after a confirmation page and shows the new one once, the old one kept for 24 hours', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?rotate`);
    const confirm = await get(t, org, `/console/webhooks/${endpoint.id}/rotate`);
    assert.equal(confirm.statusCode, 200);
    const asked = page(confirm);
    asked.getByRole('heading', { level: 1, name: 'Rotate the signing secret?' });
    asked.getByText(/keeps signing beside it for 24 hours/);
    const rotated = await post(t, org, `/console/webhooks/${endpoint.id}/rotate`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.headers['cache-control'], 'no-store');
    const shown = page(rotated);
    const secret = shown.valueOf('Signing secret');
    assert.match(secret, /^whsec_/, 'the new secret is shown');
    assert.notEqual(secret, endpoint.secret);
    shown.getByText('Copy it now: it will not be shown again.');
    const until = shown.getByText(/^The previous secret keeps signing until/).querySelector('time');
    assert.ok(until?.dateTime, 'until a time');
    // Shown once: the endpoint's page does not carry it.
    assert.ok(!(await get(t, org, `/console/webhooks/${endpoint.id}`)).body.includes(secret));
  });

  it('deletes an endpoint after a confirmation page; the API no longer finds it', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?delete`);
    const confirm = await get(t, org, `/console/webhooks/${endpoint.id}/delete`);
    assert.equal(confirm.statusCode, 200);
    page(confirm).getByRole('heading', { level: 1, name: 'Delete this endpoint?' });
    assert.equal((await apiEndpoint(org, endpoint.id)).statusCode, 200, 'the page alone deletes nothing');
    const deleted = await post(t, org, `/console/webhooks/${endpoint.id}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/console/webhooks?notice=deleted');
    assert.equal((await apiEndpoint(org, endpoint.id)).statusCode, 404);
    page(await get(t, org, '/console/webhooks?notice=deleted')).getByText(
      /Endpoint deleted: no more events are sent to it\./,
    );
  });

  it('edits the URL and the events; refuses an empty URL, a private address and no events as form errors', async () => {
    const endpoint = await createEndpoint(t, org.headers, `${receiver.url}?edit`);
    const form = await get(t, org, `/console/webhooks/${endpoint.id}/edit`);
    assert.equal(form.statusCode, 200);
    const editing = page(form).section('Edit the endpoint');
    assert.equal(editing.valueOf('Endpoint URL'), `${receiver.url}?edit`, 'the form holds the URL');
    const url = `/console/webhooks/${endpoint.id}/edit`;
    const saved = await post(t, org, url, { url: `${receiver.url}?edited`, 'event:message.*': 'on' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/webhooks/${endpoint.id}?notice=updated`);
    const api = (await apiEndpoint(org, endpoint.id)).json();
    assert.equal(api.url, `${receiver.url}?edited`);
    assert.deepEqual(api.event_types, ['message.*']);

    const empty = await post(t, org, url, { url: '', 'event:*': 'on' });
    assert.equal(empty.statusCode, 400);
    // Each error is announced with its field (its description).
    page(empty).getByRole('textbox', { name: 'Endpoint URL', description: /Enter the URL of your receiver/ });
    const none = await post(t, org, url, { url: `${receiver.url}?x` });
    assert.equal(none.statusCode, 400);
    page(none).getByRole('group', { name: 'Events to send', description: 'Choose at least one kind of event.' });
    const bad = await post(t, org, url, { url: 'not a url', 'event:*': 'on' });
    assert.equal(bad.statusCode, 400);
    const invalid = page(bad).getByRole('textbox', { name: 'Endpoint URL' });
    assert.equal(invalid.getAttribute('aria-invalid'), 'true');
    assert.equal((await apiEndpoint(org, endpoint.id)).json().url, `${receiver.url}?edited`, 'refusals change nothing');
  });

  it("answers 404 for another organization's endpoint on both pages and both forms, changing nothing", async () => {
    const theirs = await createEndpoint(t, other.headers, `${receiver.url}?theirs`);
    for (const action of ['edit', 'rotate', 'delete']) {
      assert.equal((await get(t, org, `/console/webhooks/${theirs.id}/${action}`)).statusCode, 404, action);
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
