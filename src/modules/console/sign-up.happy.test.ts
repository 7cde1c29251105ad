// Sign-up in the browser's forms (through app.inject): email and organization name, the emailed
// code, then a console session on the new-cell page, whose create is the API's first 402 with the
// setup shown in the page and paid by card from it; then the create succeeds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, uniqueEmail } from '../../../test/harness.ts';
import { csrfOf, postForm, setCookies } from '../../../test/support/console.ts';
import { page as read, textOf } from '../../../test/support/page.ts';

/** The cookie pairs (name=value) a response sets, for the next request. */
const cookiesOf = (response: { headers: Record<string, unknown> }) =>
  setCookies(response)
    .map((c) => c.split(';')[0])
    .filter((c) => !c.endsWith('='));

describe('console sign-up', () => {
  const t = useApp();

  async function signUp(email: string, name = 'Acme Agents') {
    const page = await postForm(t, '/console/sign-up', { email, organization_name: name });
    assert.equal(page.statusCode, 200, page.body);
    const [keyCookie] = cookiesOf(page);
    assert.match(keyCookie, /^cg_console_sign_up=cg_live_/);
    return { page, keyCookie };
  }

  it('links sign-up from the sign-in page and serves its form', async () => {
    const signIn = await t.app.inject({ url: '/console/sign-in' });
    const link = read(signIn).getByRole('link', { name: 'Sign up' });
    assert.equal(link.getAttribute('href'), '/console/sign-up');
    assert.equal(textOf(link.parentElement), 'No organization yet? Sign up.');
    const form = await t.app.inject({ url: '/console/sign-up' });
    assert.equal(form.statusCode, 200);
    const signUpForm = read(form);
    assert.equal(signUpForm.document.title, 'Sign up — Cellgate Console');
    signUpForm.getByRole('textbox', { name: 'Email address' });
    signUpForm.getByRole('textbox', { name: 'Organization name' });
    assert.equal(form.headers['cache-control'], 'no-store');
  });

  it('signs up, shows the first API key once, verifies with the emailed code and opens the console', async () => {
    const email = uniqueEmail();
    const { page, keyCookie } = await signUp(email);
    const shown = read(page);
    shown.getByText(/^We have sent a 6-digit code to/);
    const field = shown.getByLabelText<HTMLInputElement>('API key');
    const key = field.value;
    assert.match(key, /^cg_live_[A-Za-z0-9]+$/, 'the key is shown');
    assert.ok(field.readOnly, 'to copy, not to edit');
    assert.equal(keyCookie, `cg_console_sign_up=${key}`);
    assert.match(setCookies(page)[0], /; Path=\/console\/sign-up; Max-Age=600; HttpOnly; SameSite=Strict$/);
    // Unverified: the key may only call whoami and verify.
    const unverified = await t.app.inject({ url: '/v1/cells', headers: { authorization: `Bearer ${key}` } });
    assert.equal(unverified.statusCode, 403);

    const verified = await postForm(
      t,
      '/console/sign-up/verify',
      { email, code: t.mail.codeFor(email) },
      { cookie: keyCookie },
    );
    assert.equal(verified.statusCode, 303, verified.body);
    assert.equal(verified.headers.location, '/console/cells/new?welcome=1');
    const set = setCookies(verified);
    assert.ok(
      set.some((c) => /^cg_console_sign_up=; Path=\/console\/sign-up; Max-Age=0/.test(c)),
      'the key leaves the browser',
    );
    const session = cookiesOf(verified).find((c) => c.startsWith('cg_console='));
    assert.ok(session, 'a console session');
    const welcome = await t.app.inject({ url: '/console/cells/new?welcome=1', headers: { cookie: session } });
    assert.equal(welcome.statusCode, 200);
    assert.match(
      textOf(read(welcome).getByRole('status')),
      /^Your email is confirmed and you are signed in to Acme Agents\./,
    );
    // The key works against the API now.
    const whoami = await t.app.inject({ url: '/v1/auth/whoami', headers: { authorization: `Bearer ${key}` } });
    assert.equal(whoami.json().status, 'active');
    assert.equal(whoami.json().organization_name, 'Acme Agents');
  });

  it('creates the first cell through the 402: the setup in the page, paid by card from it, then the create', async () => {
    const email = uniqueEmail();
    const { keyCookie } = await signUp(email);
    const verified = await postForm(
      t,
      '/console/sign-up/verify',
      { email, code: t.mail.codeFor(email) },
      { cookie: keyCookie },
    );
    const cookie = cookiesOf(verified).find((c) => c.startsWith('cg_console=')) as string;
    const page = await t.app.inject({ url: '/console/cells/new', headers: { cookie } });
    const csrf = csrfOf(page.body);
    const newCell = read(page);
    const plan = newCell.within(newCell.getByRole('group', { name: 'Plan' }));
    const starter = plan.getByRole<HTMLInputElement>('radio', {
      name: 'Starter: $20.00 a month, 1 cell included',
      checked: true,
    });
    assert.equal(starter.value, 'starter');

    const refused = await postForm(
      t,
      '/console/cells/new',
      { csrf_token: csrf, display_name: 'Support line', tier: 'pro' },
      { cookie },
    );
    assert.equal(refused.statusCode, 402, refused.body);
    const refusal = read(refused);
    const payment = refusal.section('Payment needed: Pro plan setup, $100.00');
    payment.getByText(/No paid tier yet: pay the setup of pro to start\./);
    const card = payment.getByRole<HTMLButtonElement>('button', { name: 'Pay $100.00 by card' });
    assert.equal(payment.within(card.form as HTMLFormElement).hidden('intent'), 'setup:pro');
    // A starting balance may go with the plan's first month, in the same payment (contract §7).
    const balance = payment.getByRole<HTMLInputElement>('textbox', {
      name: 'Starting balance for messages, in US dollars (optional)',
    });
    assert.deepEqual([balance.name, balance.form], ['amount_usd', card.form]);
    assert.equal(refusal.valueOf('Cell name'), 'Support line', 'the form is kept');

    const pay = await postForm(
      t,
      '/console/billing/pay',
      { csrf_token: csrf, intent: 'setup:pro', rail: 'card_processor' },
      { cookie },
    );
    assert.equal(pay.statusCode, 303, pay.body);
    const checkout = new URL(String(pay.headers.location));
    const paid = await t.app.inject({
      method: 'POST',
      url: `${checkout.pathname}${checkout.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    read(paid).getByRole('heading', { level: 1, name: 'Paid: Pro plan setup' });

    const created = await postForm(
      t,
      '/console/cells/new',
      { csrf_token: csrf, display_name: 'Support line' },
      { cookie },
    );
    assert.equal(created.statusCode, 303, created.body);
    assert.match(String(created.headers.location), /^\/console\/cells\/cell_[0-9a-z]+$/);
    const cell = await t.app.inject({ url: String(created.headers.location), headers: { cookie } });
    read(cell).getByRole('heading', { level: 1, name: 'Support line' });
  });
});
