// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { loadConfig } from '../../config.ts';
import { IdempotencyKeyHeaders } from '../../operations/rest.ts';
import { registerOpenApi } from '../../http/openapi.ts';
import { Described } from '../../http/schemas.ts';
import { createServer } from '../../http/server.ts';
import { systemClock } from '../../lib/clock.ts';
import { ERRORS, type ErrorCode } from '../../lib/errors.ts';
import { DEVICE_EVENT_TYPES } from '../devices/events.ts';
import { EVENT_DOCS, EVENT_TYPES } from '../events/types.ts';
import { expectProblem, startApp, type TestApp, useApp } from '../../../test/harness.ts';
import { activeLine, send } from '../../../test/support/messages.ts';

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

const isDocumentation = (url: string) => /^\/(docs|openapi\.(yaml|json))(\/|\*|$)/.test(url);

const OPERATION_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/* eslint-disable @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely */
type Operation = {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: any[];
  responses: Record<string, any>;
  requestBody?: any;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely
function operationsOf(doc: any): Array<{ key: string; operation: Operation }> {
  const found: Array<{ key: string; operation: Operation }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (OPERATION_METHODS.includes(method)) found.push({ key: `${method.toUpperCase()} ${path}`, operation });
    }
  }
  return found;
}

const errorStatuses = (operation: Operation) =>
  Object.keys(operation.responses).filter((status) => /^[45]\d\d$/.test(status));

describe('OpenAPI document and reference', () => {
  let t: TestApp;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely
  let doc: any;
  let yamlText: string;
  let routes: RouteOptions[];
  let routeSchemas: string;
  before(async () => {
    ({ result: t, routes } = await collectRoutes(() =>
      startApp({ env: { CELLGATE_BASE_URL: 'https://api.cellgate.test' } }),
    ));
    routeSchemas = JSON.stringify(routes.map((route) => route.schema));
    const response = await t.app.inject({ url: '/openapi.yaml' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/yaml/);
    yamlText = response.body;
    doc = parse(yamlText);
  });
  after(() => t.close());

  it('leaves the route schemas as they were (other apps compile their serializers from them)', () => {
    assert.equal(JSON.stringify(routes.map((route) => route.schema)), routeSchemas);
  });

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
    assert.deepEqual(
      [schemes.phoneKey.type, schemes.phoneKey.in, schemes.phoneKey.name],
      ['apiKey', 'header', 'X-Phone-Key'],
    );
  });

  it('lists every registered route except the documentation ones', () => {
    const registered = [
      ...new Set(
        routes
          .filter((route) => !isDocumentation(route.url) && !(route.schema as { hide?: boolean } | undefined)?.hide)
          .flatMap((route) =>
            [route.method].flat().map((method) => `${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
          )
          .filter((route) => !route.startsWith('HEAD ')),
      ),
    ];
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(operations)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
          documented.add(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.ok(
      registered.includes('POST /v1/agent/sign-up') && registered.includes('DELETE /v1/auth/keys/{key_id}'),
      'the route tree was read',
    );
    assert.deepEqual(
      registered.filter((r) => !documented.has(r)),
      [],
      'registered but not documented',
    );
    assert.deepEqual(
      [...documented].filter((r) => !registered.includes(r)),
      [],
      'documented but not registered',
    );
  });

  it('states the credential of each surface and the problem+json error of every operation', () => {
    assert.deepEqual(doc.paths['/v1/auth/whoami'].get.security, [{ bearer: [] }]);
    assert.deepEqual(doc.paths['/v1/admin/outbox'].get.security, [{ admin: [] }]);
    assert.deepEqual(doc.paths['/v1/agent/sign-up'].post.security, []);
    assert.ok(doc.components.schemas.Problem);
    for (const { key, operation } of operationsOf(doc)) {
      assert.ok(operation.responses['4XX'], `${key} documents other client errors`);
      assert.ok(operation.responses['500'] && operation.responses['503'], `${key} documents its server errors`);
    }
  });

  it('gives every operation a unique camelCase operationId, a summary and tags described at the top', () => {
    const operations = operationsOf(doc);
    assert.equal(
      operations.length,
      new Set(operations.map((o) => o.operation.operationId)).size,
      'operationIds are unique',
    );
    const described = new Map(
      (doc.tags as Array<{ name: string; description: string }>).map((tag) => [tag.name, tag.description]),
    );
    for (const { key, operation } of operations) {
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z0-9]*$/, `${key} has an operationId`);
      assert.ok(operation.summary, `${key} has a summary`);
      assert.ok(operation.tags?.length, `${key} has a tag`);
      for (const tag of operation.tags) assert.ok(described.get(tag), `tag ${tag} of ${key} is described`);
    }
    const ids = new Set(operations.map((o) => o.operation.operationId));
    for (const id of [
      'sendMessage',
      'replyToMessage',
      'listCells',
      'getCell',
      'createCell',
      'createWebhook',
      'listWebhookDeliveries',
      'signUp',
      'whoami',
    ]) {
      assert.ok(ids.has(id), `${id} is an operation`);
    }
  });

  it('describes every response, and no response is a "Default Response"', () => {
    assert.doesNotMatch(yamlText, /Default Response/);
    for (const { key, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        assert.ok(
          typeof response.description === 'string' && response.description.length > 3,
          `${key} ${status} is described`,
        );
      }
    }
  });

  it('names each resource as a component schema, with an example, and refers to it from the operations', () => {
    const schemas = doc.components.schemas;
    for (const name of [
      'Cell',
      'Message',
      'LeasedMessage',
      'Conversation',
      'Webhook',
      'WebhookDelivery',
      'Device',
      'ApiKey',
      'Organization',
      'EventEnvelope',
      'Problem',
    ]) {
      assert.ok(schemas[name], `${name} is a component`);
      assert.ok(schemas[name].examples?.length, `${name} has an example`);
    }
    const body = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    assert.deepEqual(body('/v1/cells/{id}', 'get', '200'), { $ref: '#/components/schemas/Cell' });
    assert.deepEqual(body('/v1/cells', 'get', '200'), { $ref: '#/components/schemas/CellList' });
    assert.deepEqual(schemas.CellList.properties.cells.items, { $ref: '#/components/schemas/Cell' });
    assert.deepEqual(body('/v1/cells/{cell_id}/messages/send', 'post', '202'), {
      $ref: '#/components/schemas/Message',
    });
    assert.deepEqual(body('/v1/webhooks', 'post', '201'), { $ref: '#/components/schemas/WebhookWithSecret' });
    assert.deepEqual(body('/v1/webhooks/{id}/deliveries', 'get', '200'), {
      $ref: '#/components/schemas/WebhookDeliveryList',
    });
    // Every success body is a named schema (a 204 has none).
    for (const { key, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status.startsWith('2') && response.content)
          assert.ok(response.content['application/json'].schema.$ref, `${key} ${status} refers to a named schema`);
      }
    }
    // Request bodies carry an example.
    assert.deepEqual(
      doc.paths['/v1/cells/{cell_id}/messages/send'].post.requestBody.content['application/json'].example,
      { to: '+14155550199', body: 'Your table for two is ready.' },
    );
  });

  it('enumerates on Problem the codes of the error table', () => {
    assert.deepEqual(doc.components.schemas.Problem.properties.code.enum, Object.keys(ERRORS));
  });

  it('lists per operation the error statuses it answers, each a Problem naming its codes', () => {
    const statuses = (path: string, method: string) => errorStatuses(doc.paths[path][method]);
    assert.deepEqual(statuses('/v1/cells/{cell_id}/messages/send', 'post'), [
      '400',
      '401',
      '402',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
    ]);
    assert.deepEqual(statuses('/health', 'get'), ['500', '503']);
    assert.deepEqual(statuses('/v1/agent/sign-up', 'post'), ['400', '409', '413', '415', '429', '500', '503']);
    assert.deepEqual(
      statuses('/v1/auth/whoami', 'get'),
      ['401', '429', '500', '503'],
      'unverified organizations may call whoami: no 403',
    );
    const conflict = doc.paths['/v1/cells/{cell_id}/messages/send'].post.responses['409'].description;
    for (const code of ['cell_not_active', 'recipient_opted_out', 'idempotency_request_in_progress'])
      assert.match(conflict, new RegExp(`\`${code}\``));
    for (const { key, operation } of operationsOf(doc)) {
      for (const status of errorStatuses(operation)) {
        const response = operation.responses[status];
        const media = response.content['application/problem+json'];
        assert.deepEqual(media.schema, { $ref: '#/components/schemas/Problem' }, `${key} ${status} is a Problem`);
        assert.equal(media.example.status, Number(status), `${key} ${status} has its example`);
        const codes = [...response.description.matchAll(/`([a-z_]+)`:/g)].map(
          (m: RegExpMatchArray) => m[1] as ErrorCode,
        );
        assert.ok(codes.length > 0, `${key} ${status} names its codes`);
        for (const code of codes) assert.equal(ERRORS[code]?.status, Number(status), `${key}: ${code} is a ${status}`);
      }
    }
  });

  it('declares the Idempotency-Key header on exactly the operations that take one', () => {
    const takesKey = new Set(
      routes
        .filter(
          (route) =>
            route.config?.idempotent &&
            !(route.schema as { hide?: boolean } | undefined)?.hide &&
            route.method !== 'HEAD',
        )
        .map((route) => `${String(route.method)} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    );
    assert.ok(
      takesKey.has('POST /v1/cells/{cell_id}/messages/send') &&
        takesKey.has('POST /v1/cells/{cell_id}/messages/{message_id}/reply'),
    );
    const declared = new Set<string>();
    for (const { key, operation } of operationsOf(doc)) {
      const parameter = operation.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (!parameter) continue;
      declared.add(key);
      assert.equal(parameter.required, false);
      assert.deepEqual(parameter.schema, { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]*$' });
    }
    assert.deepEqual([...declared].sort(), [...takesKey].sort());
  });

  it('describes each event type as a webhook: the envelope with the data schema of the type', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES, ...DEVICE_EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const operation = doc.webhooks[type].post;
      assert.ok(
        operation.operationId && operation.summary && operation.responses['200'],
        `${type} is a complete operation`,
      );
      const name = operation.requestBody.content['application/json'].schema.$ref.replace('#/components/schemas/', '');
      const [envelope, own] = doc.components.schemas[name].allOf;
      assert.deepEqual(envelope, { $ref: '#/components/schemas/EventEnvelope' });
      assert.deepEqual(own.properties.type.enum, [type]);
      const data = EVENT_DOCS[type].data;
      if (data) assert.deepEqual(own.properties.data, { $ref: `#/components/schemas/${data}` });
      if (data) assert.ok(doc.components.schemas[data], `${data} is a component`);
    }
    assert.deepEqual(doc.components.schemas.EventEnvelope.properties.type.enum, [...EVENT_TYPES]);
  });

  it("describes the operator's device events as webhooks: no organization, the Device as data", () => {
    for (const type of DEVICE_EVENT_TYPES) {
      const operation = doc.webhooks[type].post;
      assert.match(operation.description, /\/v1\/admin\/webhooks/);
      const name = operation.requestBody.content['application/json'].schema.$ref.replace('#/components/schemas/', '');
      const { properties, required } = doc.components.schemas[name];
      assert.deepEqual(properties.type.enum ?? [properties.type.const], [type]);
      assert.equal(properties.organization_id.type, 'null');
      assert.deepEqual(properties.data, { $ref: '#/components/schemas/Device' });
      assert.deepEqual(required, ['id', 'type', 'created_at', 'organization_id', 'data']);
    }
    assert.ok(doc.components.schemas.Device, 'Device is a component');
  });

  it('is also served as JSON at /openapi.json and {docs_url}/openapi.json', async () => {
    for (const url of ['/openapi.json', '/docs/openapi.json']) {
      const response = await t.app.inject({ url });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.deepEqual(response.json(), doc);
    }
  });

  it('is also served at {docs_url}/openapi.yaml', async () => {
    const response = await t.app.inject({ url: '/docs/openapi.yaml' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, yamlText);
  });

  it('GET /docs answers the HTML reference', async () => {
    let response = await t.app.inject({ url: '/docs' });
    if (response.statusCode >= 300 && response.statusCode < 400)
      response = await t.app.inject({ url: String(response.headers.location) });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<html/i);
  });
});

describe('Idempotency-Key validation, as documented', () => {
  const t = useApp();

  it('takes an absent key or 1-255 printable characters, and refuses others before any work', async () => {
    const line = await activeLine(t);
    const payload = (n: number) => ({ to: '+14155550170', body: `key check ${n}` });
    assert.equal((await send(t, line, payload(1))).statusCode, 202);
    assert.equal((await send(t, line, payload(2), { 'idempotency-key': 'k'.repeat(255) })).statusCode, 202);
    assert.equal((await send(t, line, payload(3), { 'idempotency-key': ' a ~ !' })).statusCode, 202);
    for (const key of ['k'.repeat(256), 'tab\there', '']) {
      const problem = expectProblem(
        await send(t, line, payload(4), { 'idempotency-key': key }),
        400,
        'invalid_request',
      );
      assert.equal(problem.errors[0].field.toLowerCase(), 'idempotency-key');
    }
    const listed = await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: line.org.headers });
    assert.equal(listed.json().messages.length, 3, 'the refused sends queued nothing');
  });
});

describe('A documented route is complete or is refused when it is added', () => {
  async function bareApp() {
    const config = loadConfig({ CELLGATE_BASE_URL: 'http://cellgate.test' });
    const app = createServer(config, systemClock, false);
    await registerOpenApi(app, config);
    return app;
  }
  const Thing = Type.Object({ id: Type.String() }, { $id: 'Thing', examples: [{ id: 'thing_1' }] });
  const complete = () => ({
    config: { auth: 'agent' as const },
    schema: {
      operationId: 'getThing',
      summary: 'Read a thing',
      tags: ['Cells'],
      response: { 200: Described(Thing, 'The thing.') },
    },
  });
  const handler = async () => ({ id: 'thing_1' });

  const cases: Array<[string, (options: ReturnType<typeof complete>) => void, RegExp]> = [
    ['an operationId', (o) => void Object.assign(o.schema, { operationId: undefined }), /schema\.operationId/],
    ['a declared tag', (o) => void Object.assign(o.schema, { tags: ['Gadgets'] }), /tag "Gadgets"/],
    [
      'a described success response',
      (o) => void Object.assign(o.schema, { response: { 200: Thing } }),
      /description of its 200 response/,
    ],
    [
      'the Idempotency-Key header when it takes one',
      (o) => void Object.assign(o.config, { idempotent: 'operation' }),
      /Idempotency-Key header/,
    ],
  ];
  for (const [lack, spoil, message] of cases) {
    it(`refuses a route without ${lack}`, async () => {
      const app = await bareApp();
      const options = complete();
      spoil(options);
      assert.throws(() => app.get('/v1/things/:id', options, handler), message);
      await app.close();
    });
  }

  it('refuses a second route with the same operationId', async () => {
    const app = await bareApp();
    app.get('/v1/things/:id', complete(), handler);
    assert.throws(() => app.get('/v1/other-things/:id', complete(), handler), /operationId getThing .* is taken/);
    await app.close();
  });

  it('takes a complete route, with its Idempotency-Key header when it takes one, and hidden routes as they are', async () => {
    const app = await bareApp();
    const options = complete();
    app.post(
      '/v1/things',
      {
        ...options,
        config: { auth: 'agent', idempotent: 'operation' },
        schema: { ...options.schema, headers: IdempotencyKeyHeaders },
      },
      handler,
    );
    app.get('/v1/hidden', { config: { auth: 'public' }, schema: { hide: true } }, handler);
    await app.ready();
    const document = app.swagger() as unknown as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    };
    assert.deepEqual(document.paths['/v1/things'].post.responses['200'].content['application/json'].schema, {
      $ref: '#/components/schemas/Thing',
    });
    assert.ok(document.components.schemas.Thing);
    assert.equal(document.paths['/v1/hidden'], undefined);
    await app.close();
  });
});
