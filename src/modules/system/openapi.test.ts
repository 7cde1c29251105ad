import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { startApp, type TestApp } from '../../../test/harness.ts';

/** Collects every route of every Fastify instance created while `run` runs (Fastify publishes
 * each new instance on the `fastify.initialization` diagnostics channel, before any route). */
async function collectRoutes<T>(run: () => Promise<T>): Promise<{ result: T; routes: RouteOptions[] }> {
  const routes: RouteOptions[] = [];
  const onInit = (message: unknown) => {
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (route) => {
      routes.push(route);
    });
  };
  diagnostics.subscribe('fastify.initialization', onInit);
  try {
    return { result: await run(), routes };
  } finally {
    diagnostics.unsubscribe('fastify.initialization', onInit);
  }
}

const isDocumentation = (url: string) => /^\/(docs|openapi\.yaml)(\/|\*|$)/.test(url);

describe('OpenAPI document and reference', () => {
  let t: TestApp;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely
  let doc: any;
  let yamlText: string;
  let routes: RouteOptions[];
  before(async () => {
    ({ result: t, routes } = await collectRoutes(() => startApp({ env: { CELLGATE_BASE_URL: 'https://api.cellgate.test' } })));
    const response = await t.app.inject({ url: '/openapi.yaml' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/yaml/);
    yamlText = response.body;
    doc = parse(yamlText);
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
    assert.match(doc.openapi, /^3\.1\./);
  });

  it('states version 0.1.0 and the base URL as its server', () => {
    assert.equal(doc.info.version, '0.1.0');
    assert.equal(doc.servers[0].url, 'https://api.cellgate.test');
  });

  it('declares the bearer, admin and phoneKey security schemes', () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.bearer, { type: 'http', scheme: 'bearer', description: schemes.bearer.description });
    assert.equal(schemes.admin.type, 'http');
    assert.equal(schemes.admin.scheme, 'bearer');
    assert.deepEqual([schemes.phoneKey.type, schemes.phoneKey.in, schemes.phoneKey.name], ['apiKey', 'header', 'X-Phone-Key']);
  });

  it('lists every registered route except the documentation ones', () => {
    const registered = [
      ...new Set(
        routes
          .filter((route) => !isDocumentation(route.url) && !(route.schema as { hide?: boolean } | undefined)?.hide)
          .flatMap((route) => [route.method].flat().map((method) => `${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`))
          .filter((route) => !route.startsWith('HEAD ')),
      ),
    ];
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) documented.add(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.ok(registered.includes('POST /v1/agent/sign-up') && registered.includes('DELETE /v1/auth/keys/{key_id}'), 'the route tree was read');
    assert.deepEqual(registered.filter((r) => !documented.has(r)), [], 'registered but not documented');
    assert.deepEqual([...documented].filter((r) => !registered.includes(r)), [], 'documented but not registered');
  });

  it('states the credential of each surface and the problem+json error of every operation', () => {
    assert.deepEqual(doc.paths['/v1/auth/whoami'].get.security, [{ bearer: [] }]);
    assert.deepEqual(doc.paths['/v1/admin/outbox'].get.security, [{ admin: [] }]);
    assert.deepEqual(doc.paths['/v1/agent/sign-up'].post.security, []);
    assert.ok(doc.components.schemas.Problem);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely
    for (const operations of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(operations)) {
        assert.ok(operation.responses['4XX'] && operation.responses['5XX'], `${operation.summary} documents its errors`);
      }
    }
  });

  it('is also served at {docs_url}/openapi.yaml', async () => {
    const response = await t.app.inject({ url: '/docs/openapi.yaml' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, yamlText);
  });

  it('GET /docs answers the HTML reference', async () => {
    let response = await t.app.inject({ url: '/docs' });
    if (response.statusCode >= 300 && response.statusCode < 400) response = await t.app.inject({ url: String(response.headers.location) });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<html/i);
  });
});
