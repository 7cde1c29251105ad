// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The error pages and the landing: every code of the error table has a page with its meaning,
// causes, fix, example body and operations (the same operations the OpenAPI document lists),
// the `type` of a real problem body resolves to its page, and / names the service.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, ERROR_DOCS, ERRORS } from '../../lib/errors.ts';
import { VERSION } from '../system/routes.ts';
import { startApp, type TestApp } from '../../../test/harness.ts';

const json = { accept: 'application/json' };
const escaped = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
const textOf = (prose: string) => escaped(prose).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The operationIds whose documented error responses name `code`, from the OpenAPI document. */
interface Operation {
  operationId: string;
  responses?: Record<string, { description?: string }>;
}

function operationsNaming(document: { paths?: Record<string, unknown> }, code: string): string[] {
  const ids: string[] = [];
  for (const item of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(item)) {
      const responses = Object.values(operation.responses ?? {});
      if (responses.some((r) => typeof r.description === 'string' && r.description.includes(`\`${code}\`:`)))
        ids.push(operation.operationId);
    }
  }
  return ids.sort();
}

describe('error pages', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('serves an accessible HTML page for every code of the error table', async () => {
    for (const code of ERROR_CODES) {
      const response = await t.app.inject({ url: `/docs/errors/${code}` });
      assert.equal(response.statusCode, 200, code);
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
      const page = response.body;
      assert.match(page, /^<!doctype html>\n<html lang="en">/);
      assert.match(page, new RegExp(`<title>${code}: [^<]+ \\(HTTP ${ERRORS[code].status}\\)`));
      assert.equal(page.match(/<h1>/g)?.length, 1, `${code}: one h1`);
      assert.ok(page.includes(`<h1><code>${code}</code>: ${escaped(ERRORS[code].title)}</h1>`), code);
      assert.ok(page.includes(`HTTP ${ERRORS[code].status}`), code);
      for (const heading of [
        'What it means',
        'Usual causes',
        'How to fix it',
        'Example problem body',
        'Operations that can return it',
      ]) {
        assert.ok(page.includes(`<h2>${heading}</h2>`), `${code}: ${heading}`);
      }
      const { when } = ERROR_DOCS[code];
      assert.ok(page.includes(`<p>${textOf(`${when[0].toUpperCase()}${when.slice(1)}.`)}</p>`), `${code}: meaning`);
      for (const cause of ERROR_DOCS[code].causes) assert.ok(page.includes(textOf(cause)), `${code}: ${cause}`);
      assert.ok(page.includes(textOf(ERROR_DOCS[code].fix)), `${code}: fix`);
      assert.ok(page.includes(escaped(`"type": "http://cellgate.test/docs/errors/${code}"`)), `${code}: example type`);
    }
  });

  it('lists, per code, the operations whose documented responses name it in the OpenAPI document', async () => {
    const document = t.app.swagger();
    for (const code of ERROR_CODES) {
      const entry = (await t.app.inject({ url: `/docs/errors/${code}`, headers: json })).json();
      assert.deepEqual(
        entry.operations.map((o: { operation_id: string }) => o.operation_id).sort(),
        operationsNaming(document, code),
        code,
      );
    }
    const page = (await t.app.inject({ url: '/docs/errors/cell_in_pod' })).body;
    assert.ok(page.includes('<code>POST /v1/pods</code>'));
    assert.ok(page.includes('<code>PATCH /v1/pods/{id}</code>'));
    const internal = (await t.app.inject({ url: '/docs/errors/internal_error' })).body;
    assert.match(internal, /<p>Every operation can return it \(\d+ operations\)\.<\/p>/);
    const timeout = (await t.app.inject({ url: '/docs/errors/request_timeout' })).body;
    assert.match(timeout, /<p>Any request can receive it/);
  });

  it('answers JSON with the example body in the shape of real problem bodies', async () => {
    const response = await t.app.inject({ url: '/docs/errors/invalid_request', headers: json });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const entry = response.json();
    assert.equal(entry.code, 'invalid_request');
    assert.equal(entry.status, 400);
    assert.deepEqual(Object.keys(entry.example), ['type', 'title', 'status', 'detail', 'code', 'request_id', 'errors']);
    assert.equal(entry.example.type, 'http://cellgate.test/docs/errors/invalid_request');
  });

  it('indexes every code with a link to its page, in HTML and JSON', async () => {
    const page = await t.app.inject({ url: '/docs/errors' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html lang="en">/);
    assert.match(page.body, /<title>Error codes · Cellgate<\/title>/);
    for (const code of ERROR_CODES)
      assert.ok(page.body.includes(`<a href="/docs/errors/${code}"><code>${code}</code></a>`), code);
    const index = (await t.app.inject({ url: '/docs/errors', headers: json })).json();
    assert.deepEqual(
      index.errors.map((e: { code: string }) => e.code),
      ERROR_CODES,
    );
    assert.equal(index.errors[0].url, 'http://cellgate.test/docs/errors/invalid_request');
  });

  it('resolves the type URL of a real problem body to its page (default CELLGATE_DOCS_URL)', async () => {
    const problem = await t.app.inject({ url: '/v1/auth/whoami' });
    assert.equal(problem.statusCode, 401);
    const type = new URL(problem.json().type);
    assert.equal(type.origin, t.config.baseUrl);
    const page = await t.app.inject({ url: type.pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1><code>unauthenticated<\/code>/);
  });

  it('leaves the API reference at /docs in place', async () => {
    let response = await t.app.inject({ url: '/docs' });
    if (response.statusCode >= 300 && response.statusCode < 400)
      response = await t.app.inject({ url: String(response.headers.location) });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
  });
});

describe('landing', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const links = {
    docs: 'http://cellgate.test/docs',
    errors: 'http://cellgate.test/docs/errors',
    console: 'http://cellgate.test/console',
    health: 'http://cellgate.test/health',
    openapi: 'http://cellgate.test/openapi.yaml',
  };

  it('GET / names the service and its version and links the docs, errors, console, health and OpenAPI', async () => {
    const response = await t.app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(response.body, /<html lang="en">/);
    assert.match(response.body, new RegExp(`<title>Cellgate ${VERSION}</title>`));
    assert.match(response.body, /<h1>Cellgate/);
    for (const href of Object.values(links)) assert.ok(response.body.includes(`href="${href}"`), href);
  });

  it('GET / with Accept: application/json answers {name, version, links}', async () => {
    const response = await t.app.inject({ url: '/', headers: json });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { name: 'Cellgate', version: VERSION, links });
  });
});
