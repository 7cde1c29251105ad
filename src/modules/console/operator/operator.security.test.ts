import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { useApp } from '../../../../test/harness.ts';
import { sha256Hex } from '../../../lib/secrets.ts';
import { activeLine, type Line } from '../../../../test/support/messages.ts';
import { postForm, setCookies, signInConsole, type ConsoleSignIn } from '../../../../test/support/console.ts';
import { LiveClient } from '../../../../test/support/console-conversations.ts';
import { MAX_FLEET_STREAMS } from './live.ts';
import { OPERATOR_SESSION_TTL_MS } from './service.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';

const OPERATOR_PAGES = (deviceId: string, organizationId: string) => [
  '/console/operator/fleet',
  '/console/operator/fleet/live',
  `/console/operator/devices/${deviceId}`,
  '/console/operator/organizations',
  `/console/operator/organizations/${organizationId}`,
  '/console/operator/deposits',
];
const ORGANIZATION_PAGES = [
  '/console/cells',
  '/console/webhooks',
  '/console/keys',
  '/console/billing',
  '/console/grants',
];

describe('operator console security', () => {
  const t = useApp();
  let line: Line;
  let organization: ConsoleSignIn;
  let operator: OperatorSignIn;

  before(async () => {
    line = await activeLine(t);
    organization = await signInConsole(t, line.org.email);
    operator = await signInOperator(t);
  });

  const keyWorks = async (key: string) =>
    (await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: { 'x-phone-key': key }, payload: {} }))
      .statusCode === 200;

  it('refuses an unknown admin token, an API key and an empty field alike, with the error on the field and no cookie', async () => {
    for (const token of ['cg_adm_NotARealToken0000000000000000', line.org.apiKey, 'hunter2', '']) {
      const response = await postForm(t, '/console/operator/sign-in', { admin_token: token });
      assert.equal(response.statusCode, 400, token);
      assert.equal(setCookies(response).length, 0);
      assert.match(response.body, /<title>Error: Operator sign-in — Cellgate Operator<\/title>/);
      assert.match(response.body, /aria-describedby="admin-token-error" aria-invalid="true"/);
      assert.doesNotMatch(
        response.body,
        new RegExp(token === '' ? 'never-matches-anything' : token),
        'the token is not echoed',
      );
    }
  });

  it('sets an HttpOnly, SameSite=Strict cookie on /console/operator only, and stores only its hash', async () => {
    const response = await postForm(t, '/console/operator/sign-in', { admin_token: 'cg_adm_TestAdminToken0123456789' });
    const [cookie] = setCookies(response);
    assert.match(
      cookie,
      /^cg_operator=cg_os_[A-Za-z0-9]+; Path=\/console\/operator; Max-Age=28800; HttpOnly; SameSite=Strict$/,
    );
    const token = cookie.slice('cg_operator='.length, cookie.indexOf(';'));
    const rows = await sql<{ token_hash: string }>`select token_hash from operator_sessions`.execute(t.database.db);
    assert.ok(rows.rows.some((row) => row.token_hash === sha256Hex(token)));
    assert.ok(rows.rows.every((row) => row.token_hash !== token));
  });

  it('never redirects to another site after sign-in', async () => {
    for (const next of ['https://evil.example/x', '//evil.example/x', '/console/cells', '/console/operator/../cells']) {
      const response = await postForm(t, '/console/operator/sign-in', {
        admin_token: 'cg_adm_TestAdminToken0123456789',
        next,
      });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/console/operator/fleet', next);
    }
  });

  it("answers 404 to an organization's session on every operator page and form", async () => {
    for (const url of OPERATOR_PAGES(line.device.id, line.org.organizationId)) {
      const response = await t.app.inject({ url, headers: organization.headers });
      assert.equal(response.statusCode, 404, url);
      assert.doesNotMatch(response.body, /Operator/, 'nothing tells that an operator console exists');
    }
    const posted = await postForm(
      t,
      `/console/operator/devices/${line.device.id}/rotate-key`,
      { csrf_token: organization.csrf },
      organization.headers,
    );
    assert.equal(posted.statusCode, 404);
    assert.ok(await keyWorks(line.device.key), 'the key was not rotated');
  });

  it("answers 404 to an operator's session on the organization's pages", async () => {
    for (const url of ORGANIZATION_PAGES) {
      const response = await t.app.inject({ url, headers: operator.headers });
      assert.equal(response.statusCode, 404, url);
    }
    // Either session where it belongs still works when the browser holds both.
    const both = { cookie: `${organization.cookie}; ${operator.cookie}` };
    assert.equal((await t.app.inject({ url: '/console/cells', headers: both })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/console/operator/fleet', headers: both })).statusCode, 200);
    // The shared stylesheet is no page.
    assert.equal((await t.app.inject({ url: '/console/console.css', headers: operator.headers })).statusCode, 200);
  });

  it("never takes one console's session token in the other's cookie", async () => {
    const operatorToken = operator.cookie.split('=')[1];
    const organizationToken = organization.cookie.split('=')[1];
    const asOrganization = await t.app.inject({
      url: '/console/cells',
      headers: { cookie: `cg_console=${operatorToken}` },
    });
    assert.equal(asOrganization.statusCode, 303);
    assert.match(String(asOrganization.headers.location), /^\/console\/sign-in/);
    const asOperator = await t.app.inject({
      url: '/console/operator/fleet',
      headers: { cookie: `cg_operator=${organizationToken}` },
    });
    assert.equal(asOperator.statusCode, 303);
    assert.match(String(asOperator.headers.location), /^\/console\/operator\/sign-in/);
  });

  it('refuses a form without the CSRF token, with a wrong one, from another origin, or signed out', async () => {
    const url = `/console/operator/devices/${line.device.id}/rotate-key`;
    const missing = await postForm(t, url, {}, operator.headers);
    assert.equal(missing.statusCode, 403);
    const wrong = await postOperatorForm(t, url, operator, { csrf_token: `${operator.csrf.slice(1)}x` });
    assert.equal(wrong.statusCode, 403);
    const foreign = await postOperatorForm(t, url, operator, {}, { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403);
    const signedOut = await postForm(t, url, { csrf_token: operator.csrf });
    assert.equal(signedOut.statusCode, 401);
    const credit = await postOperatorForm(
      t,
      `/console/operator/organizations/${line.org.organizationId}/credits`,
      operator,
      { csrf_token: 'nope', amount_usd: '10.00', reason: 'csrf' },
    );
    assert.equal(credit.statusCode, 403);
    const signIn = await postForm(
      t,
      '/console/operator/sign-in',
      { admin_token: 'x' },
      { origin: 'https://evil.example' },
    );
    assert.equal(signIn.statusCode, 403);
    assert.ok(await keyWorks(line.device.key), 'no refused form rotated the key');
  });

  it('ends the session when its admin token is revoked, and after 8 hours', async () => {
    const created = await t.services.admin.createToken('night shift');
    const session = await signInOperator(t, created.token);
    await sql`update admin_tokens set revoked_at = ${t.clock.now().toISOString()} where id = ${created.id}`.execute(
      t.database.db,
    );
    assert.equal((await getOperatorPage(t, '/console/operator/fleet', session)).statusCode, 303);
    const revokedSignIn = await postForm(t, '/console/operator/sign-in', { admin_token: created.token });
    assert.equal(revokedSignIn.statusCode, 400);

    const daily = await signInOperator(t);
    t.clock.advance(OPERATOR_SESSION_TTL_MS - 1000);
    assert.equal((await getOperatorPage(t, '/console/operator/fleet', daily)).statusCode, 200);
    t.clock.advance(1000);
    assert.equal((await getOperatorPage(t, '/console/operator/fleet', daily)).statusCode, 303);
  });

  it(`refuses a live view beyond ${MAX_FLEET_STREAMS} open ones with 429, and takes one again when a view closes`, async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const session = await signInOperator(t);
    const views: LiveClient[] = [];
    for (let i = 0; i < MAX_FLEET_STREAMS; i++)
      views.push(await LiveClient.ready(t, '/console/operator/fleet/live', session.headers));
    const refused = await LiveClient.open(t, '/console/operator/fleet/live', session.headers);
    assert.equal(refused.status, 429);
    views.pop()?.close();
    await views[0].until(() => t.services.operatorConsole.live?.streamCount === MAX_FLEET_STREAMS - 1, 'the slot back');
    const again = await LiveClient.ready(t, '/console/operator/fleet/live', session.headers);
    for (const view of [...views, again]) view.close();
  });

  it('sends its pages with the console headers (CSP, no framing, no caching)', async () => {
    const page = await getOperatorPage(t, '/console/operator/fleet', await signInOperator(t));
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*form-action 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
  });
});
