import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, expectProblem, signUp, useApp } from '../../../test/harness.ts';
import {
  BAD_ENDPOINT_BODIES,
  badEventType,
  unknownField,
  itRefusesEach,
  onlyFieldError,
} from '../../../test/support/webhooks.ts';
import type { Lookup } from '../../lib/ssrf.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;

describe('webhook requests with bad input', () => {
  const t = useApp();
  let org: Org;
  let webhookId: string;
  before(async () => {
    org = await activeOrganization(t);
    webhookId = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: org.headers,
        payload: { client_id: 'base', url: 'https://hooks.example.com/' },
      })
    ).json().id;
  });

  const create = (payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: org.headers,
      payload: payload as Record<string, unknown>,
    });

  itRefusesEach(
    [
      ...BAD_ENDPOINT_BODIES,
      badEventType('an unknown event type', 'message.exploded'),
      badEventType('an unknown wildcard', 'nothing.*'),
      unknownField('secret', 'whsec_x'),
    ],
    create,
  );

  it('rejects a description over 500 characters (400 too_long)', async () => {
    const body = expectProblem(
      await create({ client_id: 'e1', url: 'https://a.example.com/', description: 'd'.repeat(501) }),
      400,
      'invalid_request',
    );
    assert.ok(
      body.errors.some((e: { field: string; code: string }) => e.field === 'description' && e.code === 'too_long'),
      JSON.stringify(body.errors),
    );
  });

  it('writes nothing for a rejected create: the client_id stays free', async () => {
    expectProblem(await create({ client_id: 'e-free', url: 'not a url' }), 400, 'invalid_request');
    assert.equal((await create({ client_id: 'e-free', url: 'https://a.example.com/' })).statusCode, 201);
  });

  it('rejects a bad PATCH and leaves the webhook unchanged', async () => {
    for (const [payload, field, code] of [
      [{ url: 'mailto:x@example.com' }, 'url', 'invalid_url'],
      [{ event_types: ['*', 'bogus'] }, 'event_types.1', 'invalid_value'],
      [{ enabled: null }, 'enabled', 'invalid_type'],
      [{ client_id: 'new' }, 'client_id', 'unknown_field'],
    ] as const) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/v1/webhooks/${webhookId}`,
        headers: org.headers,
        payload,
      });
      assert.deepEqual(onlyFieldError(expectProblem(response, 400, 'invalid_request')), [field, code]);
    }
    const read = await t.app.inject({ url: `/v1/webhooks/${webhookId}`, headers: org.headers });
    assert.equal(read.json().url, 'https://hooks.example.com/');
    assert.deepEqual(read.json().event_types, ['*']);
  });

  it('answers 404 for unknown ids', async () => {
    expectProblem(await t.app.inject({ url: '/v1/webhooks/whk_nope', headers: org.headers }), 404, 'not_found');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/v1/webhooks/${webhookId}/deliveries/dlv_nope/retry`,
        headers: org.headers,
      }),
      404,
      'not_found',
    );
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks/whk_nope/deliveries/dlv_nope/retry',
        headers: org.headers,
      }),
      404,
      'not_found',
    );
  });

  it('rejects bad pagination', async () => {
    for (const url of [
      '/v1/webhooks?limit=0',
      '/v1/webhooks?limit=201',
      '/v1/webhooks?cursor=garbage',
      `/v1/webhooks/${webhookId}/deliveries?limit=0`,
      `/v1/webhooks/${webhookId}/deliveries?cursor=%%%`,
    ]) {
      expectProblem(await t.app.inject({ url, headers: org.headers }), 400, 'invalid_request');
    }
  });

  it('requires an API key and a verified organization', async () => {
    expectProblem(await t.app.inject({ url: '/v1/webhooks' }), 401, 'unauthenticated');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        payload: { client_id: 'x', url: 'https://a.example.com/' },
      }),
      401,
      'unauthenticated',
    );
    const unverified = await signUp(t);
    expectProblem(
      await t.app.inject({ url: '/v1/webhooks', headers: bearer(unverified.apiKey) }),
      403,
      'organization_unverified',
    );
  });
});

describe('webhook URL guard without the development flag', () => {
  let org: Org;
  // hooks.example.com is public; rebind.example.com resolves into the private network.
  const names: Record<string, string[]> = {
    'hooks.example.com': ['93.184.215.14'],
    localhost: ['127.0.0.1', '::1'],
    'rebind.example.com': ['10.0.0.5'],
    'v6.example.com': ['fd00::5'],
    'mixed.example.com': ['93.184.215.14', '169.254.169.254'],
  };
  const lookup: Lookup = async (hostname) => {
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const t = useApp({ env: { CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'false' }, deps: { webhooks: { lookup } } });
  before(async () => {
    org = await activeOrganization(t);
  });

  let n = 0;
  const create = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: org.headers,
      payload: { client_id: `g-${++n}`, url },
    });

  it('accepts an https URL on a public address', async () => {
    assert.equal((await create('https://hooks.example.com/in')).statusCode, 201);
  });

  const rejected: [string, string, string][] = [
    ['plain http', 'http://hooks.example.com/in', 'invalid_url'],
    ['a loopback address', 'https://127.0.0.1/in', 'forbidden_address'],
    ['localhost by name', 'https://localhost/in', 'forbidden_address'],
    ['a private address', 'https://192.168.0.10/in', 'forbidden_address'],
    ['the metadata address (link-local)', 'https://169.254.169.254/latest', 'forbidden_address'],
    ['IPv6 loopback', 'https://[::1]/in', 'forbidden_address'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in', 'forbidden_address'],
    ['local-use NAT64 of a private address', 'https://[64:ff9b:1::a00:1]/in', 'forbidden_address'],
    ['IPv4-translated metadata address', 'https://[::ffff:0:a9fe:a9fe]/in', 'forbidden_address'],
    ['6to4 of loopback', 'https://[2002:7f00:1::1]/in', 'forbidden_address'],
    ['Teredo with a private client', 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/in', 'forbidden_address'],
    ['the unspecified address', 'https://0.0.0.0/in', 'forbidden_address'],
    ['a name resolving to a private address', 'https://rebind.example.com/in', 'forbidden_address'],
    ['a name resolving to a unique-local IPv6 address', 'https://v6.example.com/in', 'forbidden_address'],
    ['a name with one link-local address among public ones', 'https://mixed.example.com/in', 'forbidden_address'],
  ];
  it('accepts a name that does not resolve yet (each delivery checks it again)', async () => {
    assert.equal((await create('https://nowhere.example.com/in')).statusCode, 201);
  });

  for (const [name, url, code] of rejected) {
    it(`rejects ${name} (400 ${code})`, async () => {
      assert.deepEqual(onlyFieldError(expectProblem(await create(url), 400, 'invalid_request')), ['url', code]);
    });
  }

  it('checks the URL on update as well', async () => {
    const id = (await create('https://hooks.example.com/in')).json().id;
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      headers: org.headers,
      payload: { url: 'https://rebind.example.com/in' },
    });
    assert.equal(onlyFieldError(expectProblem(response, 400, 'invalid_request'))[1], 'forbidden_address');
    assert.equal(
      (await t.app.inject({ url: `/v1/webhooks/${id}`, headers: org.headers })).json().url,
      'https://hooks.example.com/in',
    );
  });
});
