// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// Unknown error codes: a 404 page that links the index (HTML), or a problem+json 404 for JSON clients.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';

describe('unknown error codes', () => {
  const t = useApp();

  it('answers a 404 HTML page that links the index', async () => {
    const response = await t.app.inject({ url: '/docs/errors/made_up' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(response.body, /<html lang="en">/);
    assert.match(response.body, /<h1>Unknown error code<\/h1>/);
    assert.match(response.body, /<code>made_up<\/code>/);
    assert.match(response.body, /<a href="\/docs\/errors">all error codes<\/a>/);
  });

  it('escapes the code it echoes', async () => {
    const response = await t.app.inject({ url: `/docs/errors/${encodeURIComponent('<script>alert(1)</script>')}` });
    assert.equal(response.statusCode, 404);
    assert.doesNotMatch(response.body, /<script>/);
    assert.match(response.body, /&#60;script&#62;/);
  });

  it('does not take inherited object keys for codes', async () => {
    for (const code of ['constructor', '__proto__', 'toString']) {
      assert.equal((await t.app.inject({ url: `/docs/errors/${code}` })).statusCode, 404, code);
    }
  });

  it('answers problem+json 404 not_found to a JSON client', async () => {
    expectProblem(
      await t.app.inject({ url: '/docs/errors/made_up', headers: { accept: 'application/json' } }),
      404,
      'not_found',
    );
  });
});
