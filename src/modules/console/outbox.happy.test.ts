// Without SMTP (CELLGATE_SMTP_URL unset) nothing is emailed: the console's sign-up and sign-in
// pages say so and point to the dev outbox, which the operator console lists on its Outbox page
// (newest first, 25 a page); on a loopback base URL the sign-up page shows the code itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, uniqueEmail, type TestApp } from '../../../test/harness.ts';
import { postForm, setCookies } from '../../../test/support/console.ts';
import { getOperatorPage, signInOperator, textOf } from '../../../test/support/console-operator.ts';

const NO_SMTP = { deps: { mailer: undefined } };

async function signUpPage(t: TestApp, email: string) {
  const page = await postForm(t, '/console/sign-up', { email, organization_name: 'Acme Agents' });
  assert.equal(page.statusCode, 200, page.body);
  const keyCookie = setCookies(page)[0].split(';')[0];
  return { page, text: textOf(page.body), keyCookie };
}

describe('console without SMTP, on a public base URL', () => {
  const t = useApp(NO_SMTP);

  it('says no email was sent and where the code went, and shows no code', async () => {
    const email = uniqueEmail();
    const { page, text } = await signUpPage(t, email);
    assert.match(text, /No email was sent: this server has no mail configured \( CELLGATE_SMTP_URL is not set\)/);
    assert.doesNotMatch(text, /We have sent/);
    assert.match(page.body, /<a href="\/console\/operator\/outbox">Outbox page<\/a>/);
    assert.doesNotMatch(text, /here is the code/);
    assert.equal(t.mail.sent.length, 0, 'the test mailer was not used');

    const signIn = await postForm(t, '/console/sign-in', { email: uniqueEmail() });
    assert.match(textOf(signIn.body), /No email was sent: this server has no mail configured/);
  });

  it('lists the kept mail on the operator Outbox page, newest first, 25 a page', async () => {
    const emails = Array.from({ length: 26 }, () => uniqueEmail());
    for (const email of emails) await signUpPage(t, email);
    const operator = await signInOperator(t);
    const first = await getOperatorPage(t, '/console/operator/outbox', operator);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /<a href="\/console\/operator\/outbox" aria-current="page">Outbox<\/a>/);
    const rows = [...first.body.matchAll(/<td data-label="To">([^<]+)<\/td>/g)].map((m) => m[1]);
    assert.equal(rows.length, 25);
    assert.equal(rows[0], emails[25], 'newest first');
    const older = first.body.match(/<a href="(\/console\/operator\/outbox\?cursor=[^"]+)">Older mail<\/a>/)?.[1];
    assert.ok(older, 'a link to older mail');
    const second = await getOperatorPage(t, older.replaceAll('&#38;', '&'), operator);
    const secondRows = [...second.body.matchAll(/<td data-label="To">([^<]+)<\/td>/g)].map((m) => m[1]);
    assert.ok(secondRows.includes(emails[0]));
    assert.ok(!secondRows.includes(emails[25]));

    const one = await getOperatorPage(t, `/console/operator/outbox?to=${encodeURIComponent(emails[3])}`, operator);
    assert.match(textOf(one.body), /Your Cellgate verification code: \d{6}/);
    assert.equal([...one.body.matchAll(/<td data-label="To">/g)].length, 1);

    const bad = await getOperatorPage(t, '/console/operator/outbox?cursor=nonsense', operator);
    assert.equal(bad.statusCode, 400);
    assert.match(textOf(bad.body), /This list link is not valid\./);
  });

  it('keeps the Outbox page for the operator only', async () => {
    const anonymous = await t.app.inject({ url: '/console/operator/outbox', headers: { accept: 'text/html' } });
    assert.notEqual(anonymous.statusCode, 200);
    assert.doesNotMatch(anonymous.body, /verification code/);
  });
});

describe('console without SMTP, on a loopback base URL', () => {
  const t = useApp({ ...NO_SMTP, env: { CELLGATE_BASE_URL: 'http://127.0.0.1:8080' } });

  it('shows the sign-up code on the page, and it confirms the email', async () => {
    const email = uniqueEmail();
    const { page, text, keyCookie } = await signUpPage(t, email);
    const code = page.body.match(/<strong class="mono" id="outbox-code">(\d{6})<\/strong>/)?.[1];
    assert.ok(code, text);
    const verified = await postForm(
      t,
      '/console/sign-up/verify',
      { email, code },
      { cookie: keyCookie, origin: 'http://127.0.0.1:8080' },
    );
    assert.equal(verified.statusCode, 303, verified.body);
    assert.equal(verified.headers.location, '/console/cells/new?welcome=1');
  });

  it('never shows a sign-in code', async () => {
    const signIn = await postForm(t, '/console/sign-in', { email: uniqueEmail() });
    assert.doesNotMatch(signIn.body, /outbox-code/);
  });
});

describe('console with SMTP', () => {
  const t = useApp();

  it('says the code was sent, and the Outbox page says mail goes by SMTP', async () => {
    const email = uniqueEmail();
    const { text } = await signUpPage(t, email);
    assert.match(text, /We have sent a 6-digit code to \S+@example\.com \. It expires in 10 minutes\./);
    assert.doesNotMatch(text, /No email was sent/);
    const operator = await signInOperator(t);
    const outbox = await getOperatorPage(t, '/console/operator/outbox', operator);
    assert.match(textOf(outbox.body), /Mail is sent by SMTP/);
    assert.match(textOf(outbox.body), /No mail kept\./);
  });
});
