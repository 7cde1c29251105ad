// The operator's webhooks in the console: add an endpoint (its secret shown once), see a phone's
// event delivered to it and retry it, disable and enable it, rotate its secret and delete it; each
// through the admin API's operations, so each is in the operator audit log. And the bad cases.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../../test/harness.ts';
import { transact } from '../../../db/transaction.ts';
import { postForm } from '../../../../test/support/console.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  textOf,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { addDevice, heartbeat } from '../../../../test/support/devices.ts';
import { descriptionOf, page as read } from '../../../../test/support/page.ts';

const URL_OF_ENDPOINT = 'https://ops.example.com/cellgate';

describe('operator console: webhooks', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let webhookId: string;
  before(async () => {
    operator = await signInOperator(t);
  });

  const apiWebhook = async () =>
    (await t.app.inject({ url: `/v1/admin/webhooks/${webhookId}`, headers: admin })).json() as {
      enabled: boolean;
      event_types: string[];
    };

  it('adds an endpoint for some phone events and shows its secret once', async () => {
    const page = await getOperatorPage(t, '/console/operator/webhooks', operator);
    assert.equal(page.statusCode, 200);
    const empty = read(page);
    empty.getByRole('link', { name: 'Webhooks', current: 'page' });
    empty.getByText(/No endpoint yet/);
    const clientId = empty.hidden('client_id') as string;
    const fields = { client_id: clientId, url: URL_OF_ENDPOINT, 'event:device.battery_low': 'on' };
    const added = await postOperatorForm(t, '/console/operator/webhooks', operator, fields);
    assert.equal(added.statusCode, 201, added.body.slice(0, 300));
    const shown = read(added);
    shown.getByRole('heading', { name: /^Endpoint added: its signing secret/ });
    assert.match(shown.valueOf(`Signing secret for ${URL_OF_ENDPOINT}`), /^whsec_/);
    const list = (await t.app.inject({ url: '/v1/admin/webhooks', headers: admin })).json().webhooks;
    assert.equal(list.length, 1);
    webhookId = list[0].id;
    assert.deepEqual((await apiWebhook()).event_types, ['device.battery_low']);
    // The same form again: one endpoint, and no secret shown a second time.
    const again = await postOperatorForm(t, '/console/operator/webhooks', operator, fields);
    assert.equal(again.statusCode, 200);
    assert.match(textOf(again.body), /already added/);
    assert.doesNotMatch(again.body, /whsec_/);
  });

  it('shows a delivery of a phone event and retries it', async () => {
    const phone = await addDevice(t);
    await heartbeat(t, phone.headers, { battery_pct: 9, charging: false });
    const url = `/console/operator/webhooks/${webhookId}`;
    const page = await getOperatorPage(t, url, operator);
    assert.equal(page.statusCode, 200);
    const deliveries = read(page);
    const [delivery] = deliveries.rows('Deliveries, newest first');
    assert.equal(delivery[0], 'device.battery_low');
    const retry = deliveries.getByRole<HTMLButtonElement>('button', { name: 'Retry' });
    const retryAction = retry.form?.getAttribute('action') ?? '';
    assert.match(retryAction, /^\/console\/operator\/webhooks\/whk_\w+\/deliveries\/dlv_\w+\/retry$/);
    const retried = await postOperatorForm(t, retryAction, operator);
    assert.equal(retried.statusCode, 303, retried.body);
    assert.equal(retried.headers.location, `${url}?notice=retried`);
  });

  it('disables and enables, rotates the secret and deletes after a confirmation', async () => {
    const url = `/console/operator/webhooks/${webhookId}`;
    assert.equal((await postOperatorForm(t, `${url}/enabled`, operator, { enabled: 'false' })).statusCode, 303);
    assert.equal((await apiWebhook()).enabled, false);
    assert.match(textOf((await getOperatorPage(t, `${url}?notice=disabled`, operator)).body), /Endpoint disabled/);
    assert.equal((await postOperatorForm(t, `${url}/enabled`, operator, { enabled: 'true' })).statusCode, 303);
    assert.equal((await apiWebhook()).enabled, true);

    const rotated = await postOperatorForm(t, `${url}/rotate`, operator);
    assert.equal(rotated.statusCode, 200);
    const rotatedPage = read(rotated);
    rotatedPage.getByRole('heading', { name: /^New signing secret/ });
    assert.match(rotatedPage.valueOf(`Signing secret for ${URL_OF_ENDPOINT}`), /^whsec_/);

    const confirm = await getOperatorPage(t, `${url}/delete`, operator);
    assert.equal(confirm.statusCode, 200);
    read(confirm).getByRole('heading', { level: 1, name: `Delete ${URL_OF_ENDPOINT}?` });
    const deleted = await postOperatorForm(t, `${url}/delete`, operator);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/console/operator/webhooks?notice=deleted');
    assert.equal((await t.app.inject({ url: `/v1/admin/webhooks/${webhookId}`, headers: admin })).statusCode, 404);

    const audit = await t.app.inject({ url: `/v1/admin/audit?target_id=${webhookId}`, headers: admin });
    assert.deepEqual(
      audit.json().entries.map((entry: { action: string }) => entry.action),
      [
        'webhook.delete',
        'webhook.rotate_secret',
        'webhook.update',
        'webhook.update',
        'webhook.retry_delivery',
        'webhook.create',
      ],
    );
  });

  it('refuses a bad URL on the form, unknown endpoints, a bad enabled value and forms without the CSRF token', async () => {
    for (const url of ['', 'ftp://ops.example.com/x', 'not a url']) {
      const page = await postOperatorForm(t, '/console/operator/webhooks', operator, { client_id: `bad-${url}`, url });
      assert.equal(page.statusCode, 400, `${url}: ${page.body.slice(0, 200)}`);
      const refused = read(page);
      assert.match(refused.document.title, /^Error: Webhooks/);
      const field = refused.getByRole('textbox', { name: 'URL' });
      assert.equal(field.getAttribute('aria-invalid'), 'true', url);
      const hint = 'https://… where the events are posted, signed (Standard Webhooks).';
      assert.ok(descriptionOf(field).startsWith(`${hint} `), `${url}: the error is announced after the hint`);
    }
    const unknown = '/console/operator/webhooks/whk_01jdx1f2g3h4j5k6m7n8p9q0r1';
    assert.equal((await getOperatorPage(t, unknown, operator)).statusCode, 404);
    assert.equal((await getOperatorPage(t, `${unknown}/delete`, operator)).statusCode, 404);
    assert.equal((await postOperatorForm(t, `${unknown}/delete`, operator)).statusCode, 404);
    assert.equal((await postOperatorForm(t, `${unknown}/rotate`, operator)).statusCode, 404);
    assert.equal((await postOperatorForm(t, `${unknown}/enabled`, operator, { enabled: 'true' })).statusCode, 404);
    assert.equal((await postOperatorForm(t, `${unknown}/enabled`, operator, { enabled: 'maybe' })).statusCode, 400);
    const retry = `${unknown}/deliveries/dlv_01jdx1f2g3h4j5k6m7n8p9q0r1/retry`;
    assert.equal((await postOperatorForm(t, retry, operator)).statusCode, 404);
    for (const [url, fields] of [
      ['/console/operator/webhooks', { url: URL_OF_ENDPOINT }],
      [`${unknown}/rotate`, {}],
      [`${unknown}/delete`, {}],
    ] as const) {
      assert.equal((await postForm(t, url, fields, operator.headers)).statusCode, 403, url);
    }
    const endpoints = (await t.app.inject({ url: '/v1/admin/webhooks', headers: admin })).json().webhooks;
    assert.deepEqual(endpoints, [], 'nothing was added');
  });
});

describe('operator console: many webhooks and deliveries', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  before(async () => {
    operator = await signInOperator(t);
  });

  const addEndpoint = async (n: number) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: `many-${n}`, url: `https://ops${n}.example.com/hooks` },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string };
  };
  const linkOf = (body: string, text: string) =>
    body.match(new RegExp(`<a href="([^"]+)">${text}</a>`))?.[1]?.replaceAll('&amp;', '&');

  it('pages the endpoints 50 at a time, and refuses a list link it did not write (400)', async () => {
    for (let n = 1; n <= 51; n++) await addEndpoint(n);
    const first = await getOperatorPage(t, '/console/operator/webhooks', operator);
    assert.equal(first.statusCode, 200);
    assert.equal(first.body.match(/<th scope="row"><a href="\/console\/operator\/webhooks\/whk_/g)?.length, 50);
    const more = linkOf(first.body, 'More endpoints');
    assert.ok(more, 'a link to the next page');
    const second = await getOperatorPage(t, more, operator);
    assert.equal(second.statusCode, 200);
    assert.equal(second.body.match(/<th scope="row"><a href="\/console\/operator\/webhooks\/whk_/g)?.length, 1);
    assert.equal(linkOf(second.body, 'More endpoints'), undefined);
    const shown = [first.body, second.body].join('').match(/https:\/\/ops\d+\.example\.com\/hooks/g) ?? [];
    assert.equal(new Set(shown).size, 51, 'every endpoint once');
    const bad = await getOperatorPage(t, '/console/operator/webhooks?cursor=%21%21', operator);
    assert.equal(bad.statusCode, 400);
    assert.match(textOf(bad.body), /This list link is not valid/);
  });

  it("pages an endpoint's deliveries 20 at a time, and refuses a cursor it did not write (400)", async () => {
    const endpoint = await addEndpoint(100);
    await transact(t.database.db, async (tx) => {
      for (let n = 0; n < 21; n++) await t.services.webhooks.emitOperatorEvent(tx, 'device.online', { id: `dev_${n}` });
    });
    const url = `/console/operator/webhooks/${endpoint.id}`;
    const first = await getOperatorPage(t, url, operator);
    assert.equal(first.statusCode, 200);
    assert.equal(first.body.match(/<th scope="row" class="mono">device.online<\/th>/g)?.length, 20);
    const older = linkOf(first.body, 'Older deliveries');
    assert.ok(older, 'a link to older deliveries');
    const second = await getOperatorPage(t, older, operator);
    assert.equal(second.body.match(/<th scope="row" class="mono">device.online<\/th>/g)?.length, 1);
    assert.equal(linkOf(second.body, 'Older deliveries'), undefined);
    const bad = await getOperatorPage(t, `${url}?cursor=%21%21`, operator);
    assert.equal(bad.statusCode, 400);
    assert.match(textOf(bad.body), /This list link is not valid/);
  });
});
