// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// How the OpenAPI document is served (src/modules/system/openapi-texts.ts): built once per process
// for every path that serves it, with a strong ETag answered 304 when the client's copy is
// current, and YAML that reads back to exactly the JSON.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { useApp } from '../../../test/harness.ts';

const PATHS = {
  yaml: ['/openapi.yaml', '/docs/openapi.yaml'],
  json: ['/openapi.json', '/docs/openapi.json', '/docs/json'],
};

describe('OpenAPI document serving', () => {
  let builds = 0;
  const t = useApp();
  before(async () => {
    // Counts the generator's runs (it is @fastify/swagger's decorator on the app).
    const swagger = t.app.swagger.bind(t.app);
    t.app.swagger = ((options?: { yaml?: boolean }) => {
      builds++;
      return swagger(options as never);
    }) as typeof t.app.swagger;
  });

  it('builds the document once for concurrent first requests and every path that serves it', async () => {
    const first = await Promise.all([...PATHS.yaml, ...PATHS.json, ...PATHS.yaml].map((url) => t.app.inject({ url })));
    for (const response of first) assert.equal(response.statusCode, 200);
    for (const url of [...PATHS.yaml, ...PATHS.json]) assert.equal((await t.app.inject({ url })).statusCode, 200);
    assert.equal(builds, 1);
  });

  it('serves YAML that reads back to exactly the JSON document', async () => {
    const yaml = await t.app.inject({ url: '/openapi.yaml' });
    const json = await t.app.inject({ url: '/openapi.json' });
    assert.equal(yaml.headers['content-type'], 'application/yaml; charset=utf-8');
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(parse(yaml.body), json.json());
    // Plain YAML a person can read: no anchors or aliases, descriptions as literal blocks.
    assert.doesNotMatch(yaml.body, /[:-] [&*][a-z]+\d+\b/);
    assert.match(yaml.body, /^ {2}description: \|-?\n {4}\S/m);
  });

  it('gives each text a strong ETag and revalidated caching, the same on every path serving it', async () => {
    for (const urls of Object.values(PATHS)) {
      const responses = await Promise.all(urls.map((url) => t.app.inject({ url })));
      const etag = String(responses[0].headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
      responses.forEach((response, i) => {
        assert.equal(response.headers.etag, etag, urls[i]);
        assert.equal(response.headers['cache-control'], 'public, max-age=300', urls[i]);
      });
    }
    assert.notEqual(
      (await t.app.inject({ url: '/openapi.yaml' })).headers.etag,
      (await t.app.inject({ url: '/openapi.json' })).headers.etag,
    );
  });

  it('answers 304 without a body to If-None-Match naming the current ETag, and the document to a stale one', async () => {
    for (const url of [...PATHS.yaml, ...PATHS.json]) {
      const { etag } = (await t.app.inject({ url })).headers;
      const fresh = await t.app.inject({ url, headers: { 'if-none-match': `"stale", ${String(etag)}` } });
      assert.equal(fresh.statusCode, 304, url);
      assert.equal(fresh.body, '', url);
      assert.equal(fresh.headers.etag, etag, url);
      const stale = await t.app.inject({ url, headers: { 'if-none-match': '"stale"' } });
      assert.equal(stale.statusCode, 200, url);
      assert.ok(stale.body.length > 100_000, url);
    }
  });
});
