// Pages escape by construction: hostile text typed by an organization (its name, a cell's name, a
// pod's name) or sent by a texter (a message body) comes out as text on every page that shows it,
// never as markup. Each value is read back escaped, so the test cannot pass by not showing it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, TEST_CREDIT, TEST_GRANT, uniqueEmail, useApp, type TestApp } from '../../../test/harness.ts';
import { getOperatorPage, signInOperator } from '../../../test/support/console-operator.ts';
import { signInConsole } from '../../../test/support/console.ts';
import { getPage, threadUrl } from '../../../test/support/console-conversations.ts';
import { activeLine, inbound } from '../../../test/support/messages.ts';
import { createPod } from '../../../test/support/pods.ts';

const SCRIPT = '<script>alert(1)</script>';
const IMAGE = '"><img src=x onerror=alert(1)>';
const PARTICIPANT = '+14155550166';

/** As the page must show it: `&#60;script&#62;…` (html's entities). */
const escaped = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An active organization (verified, granted and credited as the harness does) with a hostile name. */
async function hostileOrganization(t: TestApp) {
  const email = uniqueEmail();
  const signedUp = await t.app.inject({
    method: 'POST',
    url: '/v1/agent/sign-up',
    payload: { email, organization_name: `${SCRIPT}${IMAGE}` },
  });
  assert.equal(signedUp.statusCode, 201, signedUp.body);
  const { api_key: apiKey, organization_id: organizationId } = signedUp.json();
  const code = t.mail.codeFor(email);
  const headers = bearer(apiKey);
  const verified = await t.app.inject({ method: 'POST', url: '/v1/agent/verify', headers, payload: { code } });
  assert.equal(verified.statusCode, 200, verified.body);
  if (t.config.billing)
    for (const [action, payload] of [
      ['grant', TEST_GRANT],
      ['credits', TEST_CREDIT],
    ] as const) {
      const url = `/v1/admin/organizations/${organizationId}/${action}`;
      const response = await t.app.inject({ method: 'POST', url, headers: admin, payload });
      assert.equal(response.statusCode, 200, response.body);
    }
  return { email, apiKey, organizationId, code, headers };
}

describe('pages escape hostile text', () => {
  const t = useApp();

  it('shows a hostile organization name, cell name, pod name and message body as text on every page', async () => {
    const org = await hostileOrganization(t);
    const line = await activeLine(t, {}, org);
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/v1/cells/${line.cell.id}`,
      headers: org.headers,
      payload: { display_name: IMAGE },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: `${SCRIPT}${IMAGE}` })).statusCode, 201);
    const pod = await createPod(t, org, [line.cell.id], SCRIPT);
    const signIn = await signInConsole(t, org.email);

    const pages = [
      '/console/cells',
      `/console/cells/${line.cell.id}`,
      threadUrl(line.cell.id, PARTICIPANT),
      '/console/messages?text=alert',
      '/console/pods',
      `/console/pods/${pod.id}`,
      `/console/pods/${pod.id}/delete`,
      `/console/cells/${line.cell.id}/release`,
      '/console/keys',
      '/console/billing',
    ];
    for (const url of pages) {
      const page = await getPage(t, url, signIn);
      assert.equal(page.statusCode, 200, `${url}: ${page.body.slice(0, 200)}`);
      assert.doesNotMatch(page.body, /<script>alert|<img src=x/, url);
      // The organization's name is in every page's bar, escaped.
      assert.match(page.body, new RegExp(`Signed in to <strong>${escaped(`${SCRIPT}${IMAGE}`)}</strong>`), url);
    }
    const expectations: Array<[url: string, text: string]> = [
      ['/console/cells', IMAGE],
      [`/console/cells/${line.cell.id}`, `${SCRIPT}${IMAGE}`],
      [threadUrl(line.cell.id, PARTICIPANT), `${SCRIPT}${IMAGE}`],
      ['/console/messages?text=alert', `${SCRIPT}${IMAGE}`],
      ['/console/pods', SCRIPT],
      [`/console/pods/${pod.id}`, SCRIPT],
    ];
    for (const [url, text] of expectations)
      assert.match((await getPage(t, url, signIn)).body, new RegExp(escaped(text)), `${url} shows ${text} as text`);

    // The operator console shows the organization's name too.
    const operator = await signInOperator(t);
    for (const url of ['/console/operator/organizations', `/console/operator/organizations/${org.organizationId}`]) {
      const page = await getOperatorPage(t, url, operator);
      assert.equal(page.statusCode, 200, url);
      assert.doesNotMatch(page.body, /<script>alert|<img src=x/, url);
      assert.match(page.body, new RegExp(escaped(`${SCRIPT}${IMAGE}`)), url);
    }
  });
});
