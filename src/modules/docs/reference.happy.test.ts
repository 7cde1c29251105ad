// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The API reference at /docs (Scalar) through HTTP: a page that runs only this service's scripts
// under a tight Content-Security-Policy, the script it loads, the document it renders (the one
// SDKs are generated from) with its introduction and try-it inputs, and the paths around it.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { documentedOperations } from '../../http/openapi.ts';
import { useApp } from '../../../test/harness.ts';

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
}
interface Document {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
}

// In a fresh process (this one has loaded everything already): whether the plugin, whose module
// holds Scalar's 4.3 MB bundle, is resolved in the service's thread by building the app, then by a
// first /docs request (module hooks see this thread only; the worker that renders has its own).
const LOAD_PROBE = `
import { registerHooks } from 'node:module';
let loaded = false;
registerHooks({ resolve(specifier, context, next) { loaded ||= specifier === '@scalar/fastify-api-reference'; return next(specifier, context); } });
const { startApp } = await import(${JSON.stringify(new URL('../../../test/harness.ts', import.meta.url).href)});
const t = await startApp();
const atStart = loaded;
const page = await t.app.inject({ url: '/docs' });
process.stdout.write(JSON.stringify({ atStart, afterDocs: loaded, status: page.statusCode }));
await t.close();
`;

const scriptsOf = (html: string) =>
  [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attributes, body]) => ({
    src: /\bsrc="([^"]*)"/.exec(attributes)?.[1],
    body,
  }));
const directive = (policy: string, name: string) =>
  policy
    .split('; ')
    .find((d) => d.startsWith(`${name} `))
    ?.split(' ')
    .slice(1);

describe('API reference at /docs', () => {
  const t = useApp();
  let document: Document;
  before(async () => {
    document = parse((await t.app.inject({ url: '/openapi.yaml' })).body) as Document;
  });

  it('answers an HTML page titled "Cellgate API reference" that runs only scripts of this service', async () => {
    const response = await t.app.inject({ url: '/docs' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.match(response.body, /^<!doctype html>\n<html lang="en">/);
    assert.match(response.body, /<title>Cellgate API reference<\/title>/);
    const scripts = scriptsOf(response.body);
    assert.deepEqual(
      scripts.filter((s) => s.src !== undefined).map((s) => s.src),
      ['/docs/js/scalar.js'],
    );
    // The one <link> is the service's own icon.
    assert.deepEqual(response.body.match(/<link\b[^>]*>/gi), [
      '<link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    ]);
    assert.doesNotMatch(response.body, /https?:\/\/|\/\/cdn/i, 'no stylesheet, font or script from elsewhere');

    const policy = String(response.headers['content-security-policy']);
    assert.deepEqual(directive(policy, 'default-src'), ["'none'"]);
    // 'self' and exactly the inline start call, by hash: no 'unsafe-inline', no 'unsafe-eval', no host.
    const inline = scripts
      .filter((s) => s.src === undefined)
      .map((s) => `'sha256-${createHash('sha256').update(s.body).digest('base64')}'`);
    assert.equal(inline.length, 1);
    assert.deepEqual(directive(policy, 'script-src'), ["'self'", ...inline]);
    assert.deepEqual(directive(policy, 'style-src'), ["'self'", "'unsafe-inline'"]);
    assert.deepEqual(directive(policy, 'connect-src'), ["'self'", 'http://cellgate.test']);
    assert.deepEqual(directive(policy, 'frame-ancestors'), ["'none'"]);
  });

  it('serves the Scalar script it loads, gzipped to browsers, revalidated by ETag', async () => {
    const plain = await t.app.inject({ url: '/docs/js/scalar.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 1_000_000, 'the standalone bundle, not a loader of another');
    assert.match(plain.body, /createApiReference/);

    const gzipped = await t.app.inject({
      url: '/docs/js/scalar.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.headers.vary, 'accept-encoding');
    assert.ok(gunzipSync(gzipped.rawPayload).equals(plain.rawPayload));

    const etag = String(plain.headers.etag);
    const again = await t.app.inject({ url: '/docs/js/scalar.js', headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('renders the document /openapi.yaml serves', async () => {
    const start = scriptsOf((await t.app.inject({ url: '/docs' })).body).find((s) => s.src === undefined)?.body ?? '';
    const url = /"url": "([^"]+)"/.exec(start)?.[1];
    assert.equal(url, '/openapi.yaml');
    const loaded = await t.app.inject({ url });
    assert.equal(loaded.statusCode, 200);
    assert.deepEqual(parse(loaded.body), (await t.app.inject({ url: '/openapi.json' })).json());
  });

  it('introduces authentication, idempotency, pagination, errors and events as sections', () => {
    const intro = document.info.description;
    const sections = [...intro.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const section of ['Authentication', 'Idempotency', 'Pagination', 'Errors', 'Events and webhooks'])
      assert.ok(sections.includes(section), section);
    assert.doesNotMatch(intro, /^#{1}\s|^#{3,}\s/m, 'one heading level: each heading is a section of the sidebar');
    for (const credential of ['cg_live_', 'cg_at_', 'cg_adm_', 'X-Phone-Key: cg_dev_'])
      assert.ok(intro.includes(credential), credential);
    for (const term of [
      'Idempotency-Key',
      'Idempotent-Replayed',
      'next_cursor',
      'application/problem+json',
      '(http://cellgate.test/docs/errors)',
      'webhook-signature',
      '/v1/events/stream',
    ]) {
      assert.ok(intro.includes(term), term);
    }
  });

  it('declares the Idempotency-Key header on every operation that takes one, and the security schemes to try them', () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const idempotent = documentedOperations(t.app)
      .filter((o) => o.codes.includes('idempotency_key_reused'))
      .map((o) => o.operationId);
    assert.ok(idempotent.includes('sendMessage') && idempotent.length >= 4, idempotent.join());
    for (const operationId of idempotent) {
      const operation = operations.find((o) => o.operationId === operationId);
      const header = operation?.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      assert.ok(header, `${operationId} declares Idempotency-Key`);
      assert.notEqual(header.required, true, `${operationId}: the key is optional`);
    }
    const schemes = document.components.securitySchemes;
    assert.deepEqual(schemes.bearer, { ...schemes.bearer, type: 'http', scheme: 'bearer' });
    assert.deepEqual(schemes.admin, { ...schemes.admin, type: 'http', scheme: 'bearer' });
    assert.deepEqual(schemes.phoneKey, { ...schemes.phoneKey, type: 'apiKey', in: 'header', name: 'X-Phone-Key' });
    for (const operation of operations) {
      for (const requirement of operation.security ?? [])
        for (const name of Object.keys(requirement)) assert.ok(schemes[name], `${operation.operationId}: ${name}`);
    }
  });

  it("never imports the Scalar plugin in the service's thread: a worker renders the first /docs (idle memory, no blocked event loop)", () => {
    const probe = spawnSync(process.execPath, ['--input-type=module', '--eval', LOAD_PROBE], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(probe.status, 0, probe.stderr);
    assert.deepEqual(JSON.parse(probe.stdout), { atStart: false, afterDocs: false, status: 200 });
  });

  it('keeps the error pages and the document paths under /docs, and answers 404 for other paths there', async () => {
    const errors = await t.app.inject({ url: '/docs/errors' });
    assert.equal(errors.statusCode, 200);
    assert.match(errors.body, /<title>Error codes · Cellgate<\/title>/);
    assert.equal((await t.app.inject({ url: '/docs/errors/rate_limited' })).statusCode, 200);
    for (const url of ['/docs/openapi.json', '/docs/json'])
      assert.deepEqual(
        (await t.app.inject({ url })).json(),
        (await t.app.inject({ url: '/openapi.json' })).json(),
        url,
      );
    assert.equal(
      (await t.app.inject({ url: '/docs/openapi.yaml' })).body,
      (await t.app.inject({ url: '/openapi.yaml' })).body,
    );
    // Swagger UI's old paths are gone with it.
    for (const url of ['/docs/nope', '/docs/js/other.js', '/docs/static/index.html', '/docs/yaml']) {
      assert.equal((await t.app.inject({ url })).statusCode, 404, url);
    }
  });
});
