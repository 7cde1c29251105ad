// An organization that signed up and never entered its code is not locked out: the console's
// sign-in mails it a code, and signing in with it confirms the email (the sign-up code stops
// working). Signing up again with the same email says plainly that the earlier key stopped working.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signUp, uniqueEmail, useApp } from '../../../test/harness.ts';
import { postForm, setCookies } from '../../../test/support/console.ts';
import { textOf } from '../../../test/support/console-operator.ts';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('an unverified organization in the console', () => {
  const t = useApp();

  it('signs in with a mailed sign-in code, which confirms its email', async () => {
    const org = await signUp(t);
    const asked = await postForm(t, '/console/sign-in', { email: org.email });
    assert.equal(asked.statusCode, 200);
    const mail = t.mail.sent.at(-1);
    assert.equal(mail?.to, org.email);
    assert.match(mail.subject, /console sign-in code/);
    const signedIn = await postForm(t, '/console/sign-in/code', { email: org.email, code: t.mail.codeFor(org.email) });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    assert.equal(signedIn.headers.location, '/console/cells/new?welcome=1');
    const cookie = setCookies(signedIn)[0].split(';')[0];
    const welcome = await t.app.inject({ url: '/console/cells/new?welcome=1', headers: { cookie } });
    assert.equal(welcome.statusCode, 200);
    assert.match(textOf(welcome.body), /Your email is confirmed/);
    // The organization is verified: its sign-up key works, its sign-up code is spent.
    const whoami = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(whoami.json().status, 'active');
    const verify = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/verify',
      headers: bearer(org.apiKey),
      payload: { code: org.code },
    });
    assert.equal(verify.statusCode, 409);
  });

  it('is not signed in by a wrong code, and stays unverified', async () => {
    const org = await signUp(t);
    await postForm(t, '/console/sign-in', { email: org.email });
    const right = t.mail.codeFor(org.email);
    const refused = await postForm(t, '/console/sign-in/code', {
      email: org.email,
      code: right === '000000' ? '111111' : '000000',
    });
    assert.equal(refused.statusCode, 400);
    const whoami = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(org.apiKey) });
    assert.equal(whoami.json().status, 'unverified');
  });

  it('says plainly that signing up again replaced the earlier sign-up and its key', async () => {
    const email = uniqueEmail();
    const first = await postForm(t, '/console/sign-up', { email, organization_name: 'Acme' });
    assert.doesNotMatch(textOf(first.body), /replaced/);
    const firstKey = setCookies(first)[0].split(';')[0].split('=')[1];
    const second = await postForm(t, '/console/sign-up', { email, organization_name: 'Acme' });
    assert.equal(second.statusCode, 200);
    assert.match(
      textOf(second.body),
      /This email already had a sign-up waiting for its code\. This sign-up replaced it: the earlier API key and code no longer work\./,
    );
    const old = await t.app.inject({ url: '/v1/auth/whoami', headers: bearer(firstKey) });
    assert.equal(old.statusCode, 401, 'as the page says');
  });
});
