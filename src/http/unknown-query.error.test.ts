// Unknown query parameters (validation.ts): the JSON API refuses a parameter a route does not
// declare, as it refuses an unknown body field (contract §2): 400 invalid_request with
// errors[].code = "unknown_field" naming it. The OAuth protocol endpoints, the HTML pages, the
// payment webhooks and the documents keep ignoring them (docs/decisions.md says why).
import { createHmac } from 'node:crypto';
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ADMIN_TOKEN,
  activeOrganization,
  admin,
  bearer,
  expectProblem,
  useApp,
  type TestApp,
} from '../../test/harness.ts';
import { addDevice } from '../../test/support/devices.ts';
import { BASE_PAY_TO } from '../../test/support/billing.ts';
import { SECRET as DEPOSIT_SECRET, WALLET } from '../../test/support/deposits.ts';
import { STRIPE_TEST_ENV, signStripe } from '../../test/support/stripe-double.ts';
import { REDIRECT, authorizeUrl, pkce, postForm, registerPublic } from '../../test/support/oauth-client.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;
type Operation = { security?: Array<Record<string, string[]>> };
type Response = Awaited<ReturnType<TestApp['app']['inject']>>;

const UNKNOWN = 'x_unknown';
const HOST = { host: 'cellgate.test' };

/** The documented operations that still ignore unknown parameters: the payment webhooks and the discovery documents. */
const IGNORING = new Set([
  'POST /v1/billing/stripe/webhook',
  'POST /v1/billing/x402/deposits',
  'GET /.well-known/mpp',
  'GET /.well-known/oauth-authorization-server',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/v1',
  'GET /.well-known/oauth-protected-resource/mcp',
]);

/** What the 400 says about `names`, in order. */
const unknownFields = (names: string[]) =>
  names.map((name) => ({ field: name, code: 'unknown_field', message: `${name} is not a known query parameter.` }));

const isUnknownField = (response: Response) =>
  response.statusCode === 400 &&
  String(response.headers['content-type']).startsWith('application/problem+json') &&
  response.json().errors?.[0]?.code === 'unknown_field';

const withUnknown = (url: string) => `${url}${url.includes('?') ? '&' : '?'}${UNKNOWN}=1`;

describe('unknown query parameters on the JSON API', () => {
  const t = useApp();
  let org: Org;
  let phoneKey: Record<string, string>;
  let operations: Array<{ method: string; path: string; operation: Operation }>;
  before(async () => {
    org = await activeOrganization(t);
    phoneKey = (await addDevice(t)).headers;
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
  });

  /** The credential an operation's security asks for: the organization's key, the admin token or a phone's key. */
  const credentialFor = (operation: Operation): Record<string, string> => {
    const scheme = Object.keys(operation.security?.[0] ?? {})[0];
    return scheme === 'bearer' ? org.headers : scheme === 'admin' ? admin : scheme === 'phoneKey' ? phoneKey : {};
  };

  /** The operation called with its credential, made-up path ids and an empty JSON body where it takes one. */
  const call = (
    method: string,
    path: string,
    operation: Operation,
    url = withUnknown(path.replace(/\{[a-z_]+\}/g, 'unknown_1')),
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...HOST, ...credentialFor(operation) },
      ...(method === 'POST' || method === 'PATCH' ? { payload: {} } : {}),
    });

  it('refuses an unknown parameter on every documented operation, naming it (400 unknown_field)', async () => {
    assert.ok(operations.length > 100, 'the document was read');
    const accepted: string[] = [];
    for (const { method, path, operation } of operations) {
      const key = `${method} ${path}`;
      if (IGNORING.has(key)) continue;
      const response = await call(method, path, operation);
      if (!isUnknownField(response)) {
        accepted.push(`${key}: ${response.statusCode} ${response.body.slice(0, 160)}`);
        continue;
      }
      const body = expectProblem(response, 400, 'invalid_request');
      assert.deepEqual(body.errors, unknownFields([UNKNOWN]), key);
      assert.equal(body.detail, `${UNKNOWN} is not a known query parameter.`, key);
    }
    assert.deepEqual(accepted, [], 'operations that did not refuse the unknown parameter');
  });

  it('refuses it on the API routes the document leaves out: /metrics, /mcp and the device agent download', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['GET', '/metrics', bearer(ADMIN_TOKEN)],
      ['POST', '/mcp', { ...org.headers, accept: 'application/json, text/event-stream' }],
      ['GET', '/mcp', { ...org.headers, accept: 'text/event-stream' }],
      ['DELETE', '/mcp', org.headers],
      ['GET', '/v1/device/agent.mjs', {}],
    ];
    for (const [method, url, headers] of cases) {
      const response = await t.app.inject({
        method: method as 'GET',
        url: withUnknown(url),
        headers: { ...HOST, ...headers },
        ...(method === 'POST' ? { payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } } : {}),
      });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.deepEqual(body.errors, unknownFields([UNKNOWN]), `${method} ${url}`);
    }
  });

  it('names every unknown parameter once, in order, beside the declared ones', async () => {
    const response = await t.app.inject({
      url: '/v1/cells?limit=2&colour=red&page=2&colour=blue',
      headers: org.headers,
    });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.deepEqual(body.errors, unknownFields(['colour', 'page']));
    assert.equal(body.detail, '2 query parameters are not known.');
  });

  it('refuses a misspelt parameter rather than ignoring it (limt is not limit)', async () => {
    const body = expectProblem(
      await t.app.inject({ url: '/v1/cells?limt=1', headers: org.headers }),
      400,
      'invalid_request',
    );
    assert.deepEqual(body.errors, unknownFields(['limt']));
  });

  it('refuses an empty-valued unknown parameter and one without a value', async () => {
    for (const query of [`${UNKNOWN}=`, UNKNOWN]) {
      const body = expectProblem(await t.app.inject({ url: `/health?${query}` }), 400, 'invalid_request');
      assert.deepEqual(body.errors, unknownFields([UNKNOWN]), query);
    }
  });

  it('still answers the declared parameters, and a route without any, as before', async () => {
    const listed = await t.app.inject({ url: '/v1/cells?limit=2&status=active', headers: org.headers });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
    assert.equal(
      (await t.app.inject({ url: '/v1/device/messages/outbound?limit=1', headers: phoneKey })).statusCode,
      200,
    );
  });

  it('checks the credential first: an unauthenticated request with an unknown parameter is 401', async () => {
    expectProblem(await t.app.inject({ url: withUnknown('/v1/device/messages/outbound') }), 401, 'unauthenticated');
    expectProblem(
      await t.app.inject({ url: withUnknown('/v1/cells'), headers: bearer('cg_live_unknown') }),
      401,
      'unauthenticated',
    );
    expectProblem(await t.app.inject({ url: withUnknown('/v1/admin/devices') }), 401, 'unauthenticated');
  });
});

describe('routes that ignore unknown query parameters', () => {
  const t = useApp({
    env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: DEPOSIT_SECRET },
  });
  let org: Org;
  before(async () => {
    org = await activeOrganization(t);
  });

  it('OAuth: /oauth/authorize and /oauth/token ignore parameters they do not know (RFC 6749 §3.1, §3.2)', async () => {
    const client = await registerPublic(t);
    const { challenge } = pkce();
    const params = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
    };
    const authorized = await t.app.inject({ url: `${authorizeUrl(params)}&${UNKNOWN}=1&prompt_hint=x` });
    assert.equal(authorized.statusCode, 303, authorized.body);
    assert.match(String(authorized.headers.location), /\/console\/consent\?request=/);
    // The token endpoint answers the grant's own error, not one about the parameter.
    const token = await postForm(t, `/oauth/token?${UNKNOWN}=1`, {
      grant_type: 'authorization_code',
      code: 'cg_ac_unknown',
      code_verifier: 'v'.repeat(43),
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      [UNKNOWN]: '1',
    });
    assert.equal(token.statusCode, 400, token.body);
    assert.equal(token.json().error, 'invalid_grant');
  });

  it('the discovery documents, the OpenAPI documents and the HTML pages answer as without the parameter', async () => {
    for (const url of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp',
      '/openapi.json',
      '/openapi.yaml',
      '/docs',
      '/',
      '/console',
      '/console/sign-in',
      '/docs/errors/invalid_request',
    ]) {
      const plain = await t.app.inject({ url });
      const tracked = await t.app.inject({ url: `${url}?utm_source=newsletter&${UNKNOWN}=1` });
      assert.equal(tracked.statusCode, plain.statusCode, url);
      assert.ok(plain.statusCode < 400, `${url}: ${plain.statusCode}`);
      assert.equal(tracked.headers['content-type'], plain.headers['content-type'], url);
    }
  });

  it('the local card page opens and takes its form with tracking parameters added to its link', async () => {
    const started = await t.app.inject({
      method: 'POST',
      url: '/v1/billing/checkout',
      headers: org.headers,
      payload: { intent: 'top_up', amount_usd: '20.00' },
    });
    assert.equal(started.statusCode, 201, started.body);
    const link = new URL(started.json().checkout_url as string);
    const url = `${link.pathname}${link.search}&utm_source=mail`;
    const page = await t.app.inject({ url });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const paid = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(paid.statusCode, 200, paid.body);
  });

  it("the payment processor's deposit webhook credits a signed deposit posted to a URL with extra parameters", async () => {
    const payload = JSON.stringify({
      deposit_id: 'dep-unknown-query',
      network: 'base',
      from: WALLET,
      to: BASE_PAY_TO,
      amount: '25000000',
      transaction: '0xtxunknownquery',
    });
    const at = Math.floor(t.clock.now().getTime() / 1000);
    const signature = createHmac('sha256', DEPOSIT_SECRET).update(`${at}.${payload}`).digest('hex');
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/billing/x402/deposits?source=processor&${UNKNOWN}=1`,
      headers: { 'content-type': 'application/json', 'x-cellgate-signature': `t=${at},v1=${signature}` },
      payload,
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().deposit_id, 'dep-unknown-query');
  });
});

describe("Stripe's webhook and checkout return page ignore unknown query parameters", () => {
  const t = useApp({ env: { ...STRIPE_TEST_ENV } });

  it('receives a signed event posted to a URL with extra parameters', async () => {
    const event = JSON.stringify({
      id: 'evt_unknown_query',
      object: 'event',
      type: 'customer.created',
      created: 1,
      data: { object: { id: 'cus_1', object: 'customer' } },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/billing/stripe/webhook?${UNKNOWN}=1`,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signStripe(event, Math.floor(t.clock.now().getTime() / 1000)),
      },
      payload: event,
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('answers the checkout link with a tracking parameter as without it', async () => {
    const url = '/v1/billing/stripe/checkout/pay_unknown?token=abc';
    const plain = await t.app.inject({ url });
    const tracked = await t.app.inject({ url: `${url}&utm_source=mail` });
    assert.equal(tracked.statusCode, plain.statusCode);
    assert.match(String(tracked.headers['content-type']), /^text\/html/);
  });
});
