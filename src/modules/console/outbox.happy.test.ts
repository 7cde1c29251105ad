// Without SMTP (CELLGATE_SMTP_URL unset) nothing is emailed: the console's sign-up and sign-in
// pages say so and point to the dev outbox, which the operator console lists on its Outbox page
// (newest first, 25 a page); on a loopback base URL the sign-up page shows the code itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, uniqueEmail, type TestApp } from '../../../test/harness.ts';
import { postForm, setCookies } from '../../../test/support/console.ts';
import { getOperatorPage, signInOperator, textOf } from '../../../test/support/console-operator.ts';
import { page as read, type Page } from '../../../test/support/page.ts';

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
    assert.equal(read(page).href('Outbox page'), '/console/operator/outbox');
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
    const outbox = read(first);
    outbox.getByRole('link', { name: 'Outbox', current: 'page' });
    /** Whom each kept mail went to, in page order. */
    const recipients = (shown: Page) => shown.rows('Kept mail, newest first').map(([, to]) => to);
    const rows = recipients(outbox);
    assert.equal(rows.length, 25);
    assert.equal(rows[0], emails[25], 'newest first');
    const older = outbox.href('Older mail');
    assert.match(older, /^\/console\/operator\/outbox\?cursor=/);
    const secondRows = recipients(read(await getOperatorPage(t, older, operator)));
    assert.ok(secondRows.includes(emails[0]));
    assert.ok(!secondRows.includes(emails[25]));

    const one = read(
      await getOperatorPage(t, `/console/operator/outbox?to=${encodeURIComponent(emails[3])}`, operator),
    );
    const [mail] = one.rows('Kept mail, newest first');
    assert.match(mail[2], /Your Cellgate verification code: \d{6}/);
    assert.equal(one.rows('Kept mail, newest first').length, 1);

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
