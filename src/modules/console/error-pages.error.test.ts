// The consoles' sign-ins take from a bucket of their own, not the address's sign-ups; and what
// fails outside a page's own handling (an unknown address, a rate limit, an internal error) is an
// HTML page in the console's look, never the API's problem+json.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, ADMIN_TOKEN, uniqueEmail, useApp } from '../../../test/harness.ts';
import { postForm } from '../../../test/support/console.ts';
import { textOf } from '../../../test/support/console-operator.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** An HTML page (not problem+json) with this status, in the console's shell, saying `words`. */
function assertPage(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  words: RegExp,
) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(response.body, /^<!doctype html>/i);
  assert.match(response.body, /console\.css/);
  assert.match(textOf(response.body), words);
  assert.doesNotMatch(response.body, /"type":|problem\+json/);
}

describe('console sign-ins: their own per-address bucket', () => {
  const t = useApp({ env: { CELLGATE_SIGNUP_RATE_LIMIT: '10' } });

  it('10 sign-ups from an address leave both consoles able to sign in; 30 sign-in attempts are an HTML 429', async () => {
    const org = await activeOrganization(t); // one sign-up of this address
    t.clock.advance(3_600_000);
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/agent/sign-up',
        payload: { email: uniqueEmail() },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    const refused = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email: uniqueEmail() } });
    assert.equal(refused.statusCode, 429, 'the sign-up budget is spent');

    const asked = await postForm(t, '/console/sign-in', { email: org.email }, BROWSER);
    assert.equal(asked.statusCode, 200, asked.body);
    const code = t.mail.codeFor(org.email);
    const entered = await postForm(t, '/console/sign-in/code', { email: org.email, code }, BROWSER);
    assert.equal(entered.statusCode, 303, entered.body);
    const operator = await postForm(t, '/console/operator/sign-in', { admin_token: ADMIN_TOKEN }, BROWSER);
    assert.equal(operator.statusCode, 303, operator.body);

    for (let i = 3; i < 30; i++)
      assert.equal(
        (await postForm(t, '/console/sign-in', { email: org.email }, BROWSER)).statusCode,
        200,
        `attempt ${i + 1}`,
      );
    const limited = await postForm(t, '/console/sign-in', { email: org.email }, BROWSER);
    assertPage(
      limited,
      429,
      /Too many attempts.*Too many sign-in attempts from this address.*Try again in about \d+ minutes/,
    );
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assertPage(
      await postForm(t, '/console/operator/sign-in', { admin_token: ADMIN_TOKEN }, BROWSER),
      429,
      /Too many attempts/,
    );
    const other = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      remoteAddress: '203.0.113.44',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...BROWSER },
      payload: new URLSearchParams({ email: org.email }).toString(),
    });
    assert.equal(other.statusCode, 200, 'another address has its own sign-in budget');
  });
});

describe('console error pages', () => {
  const t = useApp();

  it('an unknown console address is a 404 page in the console, and in the operator console', async () => {
    assertPage(await t.app.inject({ url: '/console/no-such-page', headers: BROWSER }), 404, /Page not found/);
    const operator = await t.app.inject({ url: '/console/operator/no-such-page', headers: BROWSER });
    assertPage(operator, 404, /Page not found.*Go to the operator console/);
    const api = await t.app.inject({ url: '/v1/no-such-route', headers: BROWSER });
    assert.match(String(api.headers['content-type']), /^application\/problem\+json/, 'the API stays problem+json');
  });

  it('an internal error is a 500 page that gives the request id and no detail of the failure', async () => {
    const original = t.services.organizations.findByEmail;
    t.services.organizations.findByEmail = async () => {
      throw new Error('SELECT secret FROM organizations failed at /work/main/src/x.ts:1');
    };
    try {
      const response = await postForm(t, '/console/sign-in', { email: 'someone@example.com' }, BROWSER);
      assertPage(response, 500, /Something went wrong/);
      assert.ok(textOf(response.body).includes(String(response.headers['x-request-id'])));
      assert.doesNotMatch(response.body, /SELECT|secret|\.ts:/);
    } finally {
      t.services.organizations.findByEmail = original;
    }
  });
});
