// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The error pages and the landing: every code of the error table has a page with its meaning,
// causes, fix, example body and operations (the same operations the OpenAPI document lists),
// the `type` of a real problem body resolves to its page, and / names the service.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, ERROR_DOCS, ERRORS } from '../../lib/errors.ts';
import { html } from '../../lib/html.ts';
import { VERSION } from '../system/routes.ts';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { addDevice } from '../../../test/support/devices.ts';

const json = { accept: 'application/json' };
const escaped = (text: string) => html`${text}`.toString();
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
  const t = useApp();

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
  const t = useApp();

  const links = {
    docs: 'http://cellgate.test/docs',
    errors: 'http://cellgate.test/docs/errors',
    console: 'http://cellgate.test/console',
    health: 'http://cellgate.test/health',
    openapi: 'http://cellgate.test/openapi.yaml',
    sign_in: 'http://cellgate.test/console/sign-in',
    mcp: 'http://cellgate.test/mcp',
    sign_up: 'http://cellgate.test/v1/agent/sign-up',
  };
  const landing = () => t.app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });

  it('GET / says what Cellgate is and links sign-up, sign-in, the reference, the OpenAPI document and health', async () => {
    const response = await landing();
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(response.body, /<html lang="en">/);
    assert.match(response.body, /<title>Cellgate: phone lines for software agents<\/title>/);
    assert.match(response.body, new RegExp(`<h1>Cellgate <span class="muted version">${VERSION}</span></h1>`));
    assert.match(response.body, /<p class="tagline">Phone lines for software agents\.<\/p>/);
    assert.match(response.body, /A <strong>cell<\/strong> is a real phone number, carried by an Android phone\./);
    assert.match(
      response.body,
      /<a class="button primary" href="http:\/\/cellgate\.test\/console\/sign-up">Sign up<\/a>/,
    );
    assert.match(
      response.body,
      /<a class="button" href="http:\/\/cellgate\.test\/console\/sign-in">Sign in to the console<\/a>/,
    );
    assert.match(response.body, /<a href="http:\/\/cellgate\.test\/docs">API reference<\/a>/);
    assert.match(response.body, /<a href="http:\/\/cellgate\.test\/openapi\.yaml">OpenAPI document<\/a>/);
    assert.match(response.body, /<a href="http:\/\/cellgate\.test\/health">Health<\/a>/);
    assert.match(response.body, /<a href="http:\/\/cellgate\.test\/console">console<\/a>/);
  });

  it('GET / gives the quick start in short (sign up, verify, a cell and its 402, a send, replies) and the MCP endpoint', async () => {
    const { body } = await landing();
    assert.match(body, /<h2 id="quick-start">Quick start<\/h2>/);
    const steps = [...body.matchAll(/<li><p><strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
    assert.deepEqual(steps, ['Sign up', 'Verify', 'Create a cell', 'Send a text', 'Hear back']);
    assert.ok(body.includes(escaped(`curl -X POST http://cellgate.test/v1/agent/sign-up \\`)));
    assert.ok(body.includes(escaped(`-d '{"email": "you@example.com", "organization_name": "Acme Agents"}'`)));
    assert.match(body, /<code>POST http:\/\/cellgate\.test\/v1\/agent\/verify<\/code>/);
    assert.match(
      body,
      /<a href="http:\/\/cellgate\.test\/docs\/errors\/payment_required"><code>payment_required<\/code><\/a>/,
    );
    assert.match(body, /<code>POST http:\/\/cellgate\.test\/v1\/cells\/\{cell_id\}\/messages\/send<\/code>/);
    assert.match(body, /<h2 id="mcp">Connect an agent over MCP<\/h2>/);
    assert.match(body, /<code class="endpoint">http:\/\/cellgate\.test\/mcp<\/code>/);
    assert.ok(
      body.includes(escaped(`"url": "http://cellgate.test/mcp"`)),
      'the MCP host configuration names the endpoint',
    );
  });

  it('GET / with Accept: application/json answers {name, version, links, base_url}', async () => {
    const response = await t.app.inject({ url: '/', headers: json });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { name: 'Cellgate', version: VERSION, links, base_url: 'http://cellgate.test' });
  });
});

describe('favicon', () => {
  const t = useApp();

  it('serves an SVG icon at /favicon.svg and at /favicon.ico', async () => {
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      const response = await t.app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], 'image/svg+xml', url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.match(response.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32"/, url);
    }
  });

  it('is named by a <link rel="icon"> on the landing, the error pages, the console and the API reference', async () => {
    const icon = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">';
    for (const url of ['/', '/docs/errors', '/docs/errors/not_found', '/docs/errors/nope', '/console/sign-in']) {
      const response = await t.app.inject({ url });
      assert.ok(response.body.includes(icon), url);
    }
    let reference = await t.app.inject({ url: '/docs' });
    if (reference.statusCode >= 300 && reference.statusCode < 400)
      reference = await t.app.inject({ url: String(reference.headers.location) });
    assert.match(reference.body, /<link rel="icon"[^>]*href="\/favicon\.svg"/);
  });
});

describe('the payment_required page', () => {
  const t = useApp();

  /** A problem body with its per-request parts (request id, payment id, checkout token) masked. */
  const masked = (body: unknown) =>
    JSON.parse(
      JSON.stringify(body)
        .replace(/req_[0-9a-z]+/g, 'req_…')
        .replace(/pay_[0-9a-z]+\?token=[A-Za-z0-9]+/g, 'pay_…?token=…'),
    );

  it('shows as its example the 402 of a first cell exactly as the API sends it, payment included', async () => {
    // A phone is free, as on a rack with room: the 402 then warns of nothing beyond the payment.
    await addDevice(t);
    const org = await verifiedOrganization(t);
    const real = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'Line' },
    });
    assert.equal(real.statusCode, 402);
    const entry = (await t.app.inject({ url: '/docs/errors/payment_required', headers: json })).json();
    assert.deepEqual(masked(entry.example), masked(real.json()));
    assert.deepEqual(Object.keys(entry.example), Object.keys(real.json()), 'the same fields in the same order');
    assert.deepEqual(Object.keys(entry.example.payment), Object.keys(real.json().payment));
    const page = (await t.app.inject({ url: '/docs/errors/payment_required' })).body;
    assert.ok(page.includes(escaped(JSON.stringify(entry.example, null, 2))), 'the page shows that example');
    assert.ok(page.includes(escaped(`"payment": {`)));
  });

  it('explains the first 402 (setup), create_cell, top_up and reinstate, each with its detail text', async () => {
    const page = (await t.app.inject({ url: '/docs/errors/payment_required' })).body;
    for (const [title, intent] of [
      ['The first cell: the plan setup', 'setup'],
      ['One cell more than the plan includes', 'create_cell'],
      ['A send the prepaid balance cannot cover', 'top_up'],
      ['A suspended organization', 'reinstate'],
    ])
      assert.ok(page.includes(`<h3>${title} (<code>${intent}</code>)</h3>`), intent);
    assert.ok(page.includes('<h3>A payment that was refused</h3>'));
    assert.ok(
      page.includes('<dt><code>detail</code></dt><dd>No paid tier yet: pay the setup of {tier} to start.</dd>'),
    );
    assert.match(page, /<h2>What <code>payment<\/code> carries<\/h2>/);
    assert.match(page, /<code>PAYMENT-REQUIRED<\/code> header/);
    assert.match(page, /<code>isError: true<\/code>/);
  });
});

describe('routes named on the error pages', () => {
  const t = useApp();

  it('every API route an error page names (method and path, or a path alone) is in the OpenAPI document', async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    // A documented path as a pattern: each {param} matches one segment or a {name} written in prose.
    const routes = Object.entries(document.paths).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      methods: Object.keys(item).map((method) => method.toUpperCase()),
    }));
    const named: string[] = [];
    for (const code of ERROR_CODES) {
      const page = await t.app.inject({ url: `/docs/errors/${code}` });
      assert.equal(page.statusCode, 200, code);
      // The prose (meaning, causes, fix, operations); the example body's URLs are values, not routes named.
      const text = page.body
        .replace(/<pre>[\s\S]*?<\/pre>/g, ' ')
        .replace(/<[^>]+>/g, ' ')
        .replaceAll('&#39;', "'")
        .replaceAll('&#34;', '"');
      for (const match of text.matchAll(
        /(?:\b(GET|POST|PUT|PATCH|DELETE)\s+)?(?:https?:\/\/[^\s/]+)?(\/v1\/[A-Za-z0-9_\-/{}.]*[A-Za-z0-9_}])/g,
      )) {
        const [, method, path] = match;
        named.push(`${code}: ${method ?? '(any)'} ${path}`);
        const route = routes.find((r) => r.pattern.test(path));
        assert.ok(route, `/docs/errors/${code} names ${path}, which is not in /openapi.json`);
        if (method)
          assert.ok(route.methods.includes(method), `/docs/errors/${code} names ${method} ${path}, not documented`);
      }
    }
    assert.ok(named.length > 0, 'the pages name routes (else the pattern is wrong)');
  });
});
