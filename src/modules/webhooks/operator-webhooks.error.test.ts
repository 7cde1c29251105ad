// Operator webhooks (/v1/admin/webhooks): every bad input, unknown id and wrong credential.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, expectProblem, useApp } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';
import {
  BAD_ENDPOINT_BODIES,
  badEventType,
  unknownField,
  createEndpoint,
  itRefusesEach,
  onlyFieldError,
} from '../../../test/support/webhooks.ts';
import type { Lookup } from '../../lib/ssrf.ts';

const UNKNOWN = 'whk_01jzzzzzzzzzzzzzzzzzzzzzzz';

describe('operator webhook requests with bad input', () => {
  const t = useApp();
  let webhookId: string;
  before(async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: 'base', url: 'https://ops.example.com/' },
    });
    webhookId = response.json().id;
  });

  const create = (payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: payload as Record<string, unknown>,
    });

  itRefusesEach(
    [
      ...BAD_ENDPOINT_BODIES,
      badEventType("an organization's event type", 'message.sent'),
      badEventType("an organization's wildcard", 'cell.*'),
      badEventType('an unknown device event', 'device.exploded'),
      unknownField('organization_id', 'org_x'),
    ],
    create,
  );

  it('answers 409 client_id_conflict for a client_id repeated with another body', async () => {
    expectProblem(await create({ client_id: 'base', url: 'https://other.example.com/' }), 409, 'client_id_conflict');
  });

  it('rejects a bad PATCH and leaves the endpoint unchanged', async () => {
    for (const [payload, field, code] of [
      [{ url: 'mailto:x@example.com' }, 'url', 'invalid_url'],
      [{ event_types: ['device.*', 'message.*'] }, 'event_types.1', 'invalid_value'],
      [{ client_id: 'new' }, 'client_id', 'unknown_field'],
    ] as const) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/v1/admin/webhooks/${webhookId}`,
        headers: admin,
        payload,
      });
      assert.deepEqual(onlyFieldError(expectProblem(response, 400, 'invalid_request')), [field, code]);
    }
    const read = await t.app.inject({ url: `/v1/admin/webhooks/${webhookId}`, headers: admin });
    assert.equal(read.json().url, 'https://ops.example.com/');
  });

  it('answers 404 for unknown ids, and for an organization endpoint and its deliveries', async () => {
    const org = await activeOrganization(t);
    const theirs = await createEndpoint(t, org.headers, 'https://org.example.com/');
    for (const id of [UNKNOWN, theirs.id]) {
      for (const [method, url] of [
        ['GET', `/v1/admin/webhooks/${id}`],
        ['PATCH', `/v1/admin/webhooks/${id}`],
        ['DELETE', `/v1/admin/webhooks/${id}`],
        ['POST', `/v1/admin/webhooks/${id}/rotate-secret`],
        ['GET', `/v1/admin/webhooks/${id}/deliveries`],
        ['POST', `/v1/admin/webhooks/${id}/deliveries/dlv_01jzzzzzzzzzzzzzzzzzzzzzzz/retry`],
      ] as const) {
        const payload = method === 'PATCH' ? { enabled: false } : undefined;
        expectProblem(await t.app.inject({ method, url, headers: admin, payload }), 404, 'not_found');
      }
    }
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: `/v1/admin/webhooks/${webhookId}/deliveries/dlv_01jzzzzzzzzzzzzzzzzzzzzzzz/retry`,
        headers: admin,
      }),
      404,
      'not_found',
    );
  });

  it('rejects bad pagination', async () => {
    for (const url of [
      '/v1/admin/webhooks?limit=0',
      '/v1/admin/webhooks?cursor=garbage',
      `/v1/admin/webhooks/${webhookId}/deliveries?limit=201`,
    ]) {
      expectProblem(await t.app.inject({ url, headers: admin }), 400, 'invalid_request');
    }
  });

  it("refuses an organization's key (403 forbidden), no credential and a device key (401)", async () => {
    const org = await activeOrganization(t);
    const device = await addDevice(t);
    for (const [method, url] of [
      ['GET', '/v1/admin/webhooks'],
      ['POST', '/v1/admin/webhooks'],
      ['GET', `/v1/admin/webhooks/${webhookId}`],
      ['PATCH', `/v1/admin/webhooks/${webhookId}`],
      ['DELETE', `/v1/admin/webhooks/${webhookId}`],
      ['POST', `/v1/admin/webhooks/${webhookId}/rotate-secret`],
      ['GET', `/v1/admin/webhooks/${webhookId}/deliveries`],
    ] as const) {
      const payload =
        method === 'POST' || method === 'PATCH' ? { client_id: 'x', url: 'https://a.example.com/' } : undefined;
      expectProblem(await t.app.inject({ method, url, headers: org.headers, payload }), 403, 'forbidden');
      expectProblem(await t.app.inject({ method, url, payload }), 401, 'unauthenticated');
      expectProblem(await t.app.inject({ method, url, headers: device.headers, payload }), 401, 'unauthenticated');
    }
    // Nothing was changed by the refused calls.
    const read = await t.app.inject({ url: `/v1/admin/webhooks/${webhookId}`, headers: admin });
    assert.equal(read.statusCode, 200);
  });
});

describe('operator webhook URL guard without the development flag', () => {
  const names: Record<string, string[]> = {
    'ops.example.com': ['93.184.215.14'],
    'rebind.example.com': ['10.0.0.5'],
  };
  const lookup: Lookup = async (hostname) => {
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: 4 }));
  };
  const t = useApp({ env: { CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'false' }, deps: { webhooks: { lookup } } });
  let n = 0;
  const create = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/admin/webhooks',
      headers: admin,
      payload: { client_id: `g-${++n}`, url },
    });

  it('accepts an https URL on a public address', async () => {
    assert.equal((await create('https://ops.example.com/in')).statusCode, 201);
  });
  for (const [name, url, code] of [
    ['plain http', 'http://ops.example.com/in', 'invalid_url'],
    ['a loopback address', 'https://127.0.0.1/in', 'forbidden_address'],
    ['a private address', 'https://192.168.0.10/in', 'forbidden_address'],
    ['6to4 of the metadata address', 'https://[2002:a9fe:a9fe::1]/in', 'forbidden_address'],
    ['Teredo with a loopback client', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/in', 'forbidden_address'],
    ['a name resolving into the private network', 'https://rebind.example.com/in', 'forbidden_address'],
  ] as const) {
    it(`rejects ${name} (400 ${code})`, async () => {
      assert.deepEqual(onlyFieldError(expectProblem(await create(url), 400, 'invalid_request')), ['url', code]);
    });
  }
});
