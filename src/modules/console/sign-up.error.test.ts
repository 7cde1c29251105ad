// Sign-up's bad input, each a form error on its page (or a page saying what to do): the email,
// the organization name, an email already verified, a wrong or malformed code, no sign-up in this
// browser, and forms sent from another site.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, uniqueEmail, verifiedOrganization } from '../../../test/harness.ts';
import { postForm, setCookies } from '../../../test/support/console.ts';
import { page as read } from '../../../test/support/page.ts';

describe('console sign-up refusals', () => {
  const t = useApp();

  const signUp = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(t, '/console/sign-up', fields, headers);

  for (const [email, why] of [
    ['', 'empty'],
    ['not an email', 'no @'],
    [`${'a'.repeat(250)}@example.com`, 'too long'],
    ['two..dots@example.com', "not one by the sign-up operation's format"],
  ]) {
    it(`refuses an email that is ${why} as a form error, keeping the name`, async () => {
      const page = await signUp({ email, organization_name: 'Kept Name' });
      assert.equal(page.statusCode, 400);
      const refused = read(page);
      assert.equal(refused.document.title, 'Error: Sign up — Cellgate Console');
      refused.getByRole('textbox', {
        name: 'Email address',
        description: 'Enter an email address, like name@example.com.',
      });
      assert.equal(refused.valueOf('Organization name'), 'Kept Name');
      assert.deepEqual(setCookies(page), [], 'no sign-up started');
    });
  }

  it('refuses a missing or blank organization name, and one over 100 characters', async () => {
    for (const [name, message] of [
      ['', 'Enter the name of your organization.'],
      ['   ', 'Enter the name of your organization.'],
      ['x'.repeat(101), 'The name is too long (at most 100 characters).'],
    ]) {
      const page = await signUp({ email: uniqueEmail(), organization_name: name });
      assert.equal(page.statusCode, 400, name);
      // The error is announced with the field, after its hint.
      read(page).getByRole('textbox', { name: 'Organization name', description: (text) => text.endsWith(message) });
    }
    const missing = await signUp({ email: uniqueEmail() });
    assert.equal(missing.statusCode, 400);
  });

  it('says an email already verified belongs to an organization, and to sign in', async () => {
    const org = await verifiedOrganization(t);
    const page = await signUp({ email: org.email, organization_name: 'Again' });
    assert.equal(page.statusCode, 409);
    read(page).getByText(/already registered and verified\. Sign in instead\./);
  });

  it('refuses a wrong code as a form error and a malformed one, then takes the right one', async () => {
    const email = uniqueEmail();
    const started = await signUp({ email, organization_name: 'Codes' });
    const cookie = setCookies(started)[0].split(';')[0];
    const right = t.mail.codeFor(email);
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await postForm(t, '/console/sign-up/verify', { email, code: wrong }, { cookie });
    assert.equal(refused.statusCode, 400);
    const wrongPage = read(refused);
    assert.equal(wrongPage.document.title, 'Error: Confirm your email — Cellgate Console');
    const codeError = (text: string) => text.endsWith('The code is not correct.');
    wrongPage.getByRole('textbox', { name: 'Verification code', description: codeError });
    // The key stays on the page until the email is confirmed (a wrong code must not lose it).
    const key = cookie.split('=')[1];
    assert.equal(wrongPage.valueOf('API key'), key);
    for (const code of ['', '12345', 'abcdef', '1234567']) {
      const response = await postForm(t, '/console/sign-up/verify', { email, code }, { cookie });
      assert.equal(response.statusCode, 400, code);
      const malformed = read(response);
      const said = (text: string) => text.endsWith('Enter the 6 digits of the code.');
      malformed.getByRole('textbox', { name: 'Verification code', description: said });
      assert.equal(malformed.valueOf('API key'), key, code);
    }
    const accepted = await postForm(t, '/console/sign-up/verify', { email, code: right }, { cookie });
    assert.equal(accepted.statusCode, 303);
    // The same form again: the sign-up is done, the cookie's key is verified.
    const again = await postForm(t, '/console/sign-up/verify', { email, code: right }, { cookie });
    assert.equal(again.statusCode, 400);
    read(again).getByRole('heading', { level: 1, name: 'Sign-up not found' });
  });

  it('answers a code without a sign-up in this browser (no cookie, or a made-up key) with a page to start again', async () => {
    for (const cookie of [undefined, 'cg_console_sign_up=cg_live_madeupmadeupmadeupmadeupmadeup12']) {
      const page = await postForm(
        t,
        '/console/sign-up/verify',
        { email: uniqueEmail(), code: '123456' },
        cookie ? { cookie } : {},
      );
      assert.equal(page.statusCode, 400);
      assert.equal(read(page).href('Sign up again'), '/console/sign-up');
    }
  });

  it('refuses both forms from another site (403) and starts nothing', async () => {
    const email = uniqueEmail();
    const foreign = { origin: 'https://evil.example' };
    const page = await signUp({ email, organization_name: 'Evil' }, foreign);
    assert.equal(page.statusCode, 403);
    assert.throws(() => t.mail.codeFor(email), 'no code mailed');
    const verify = await postForm(t, '/console/sign-up/verify', { email, code: '123456' }, foreign);
    assert.equal(verify.statusCode, 403);
  });
});
