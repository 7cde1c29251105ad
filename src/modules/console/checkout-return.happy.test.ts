// After paying by card, the card page leads back to where the payment started, with what was
// typed: the create-cell form (its name and plan) or a thread (its text). The way back is a
// console path only: a foreign URL is dropped, never linked or redirected to.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { csrfOf, postForm, signInConsole } from '../../../test/support/console.ts';
import { page as read } from '../../../test/support/page.ts';

describe('the card page leads back to where the payment started', () => {
  const t = useApp();

  async function session() {
    const org = await verifiedOrganization(t);
    return signInConsole(t, org.email);
  }

  /** Pays a checkout of the local card page; the paid page. */
  async function payAt(location: string) {
    const checkout = new URL(location);
    const page = await t.app.inject({ url: `${checkout.pathname}${checkout.search}` });
    assert.equal(page.statusCode, 200, page.body);
    const paid = await t.app.inject({
      method: 'POST',
      url: `${checkout.pathname}${checkout.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(paid.statusCode, 200, paid.body);
    return { page, paid };
  }

  it('returns to the create-cell form with its name and plan filled in', async () => {
    const { cookie } = await session();
    const form = await t.app.inject({ url: '/console/cells/new', headers: { cookie } });
    const csrf = csrfOf(form.body);
    const refused = await postForm(
      t,
      '/console/cells/new',
      { csrf_token: csrf, display_name: 'Support & sales', tier: 'pro' },
      { cookie },
    );
    assert.equal(refused.statusCode, 402, refused.body);
    const back = read(refused).hidden('return') ?? '';
    assert.equal(back, '/console/cells/new?display_name=Support+%26+sales&tier=pro');

    const pay = await postForm(
      t,
      '/console/billing/pay',
      { csrf_token: csrf, intent: 'setup:pro', rail: 'card_processor', return: back },
      { cookie },
    );
    assert.equal(pay.statusCode, 303, pay.body);
    assert.equal(new URL(String(pay.headers.location)).searchParams.get('return'), back);
    const { page, paid } = await payAt(String(pay.headers.location));
    assert.equal(read(page).href('Cancel and go back'), back);
    const done = read(paid);
    done.getByRole('heading', { level: 1, name: 'Paid: Pro plan setup' });
    const link = done.href('Continue where you left off');
    assert.equal(link, back);
    assert.equal(done.href('Back to Billing'), '/console/billing');

    const again = await t.app.inject({ url: link, headers: { cookie } });
    assert.equal(again.statusCode, 200);
    assert.equal(read(again).valueOf('Cell name'), 'Support & sales');
  });

  it('carries a thread with its text through Billing', async () => {
    const { cookie } = await session();
    const thread = '/console/cells/cell_x/conversations/+14155550123?body=Hello+there';
    const billing = await t.app.inject({
      url: `/console/billing?${new URLSearchParams({ return: thread })}`,
      headers: { cookie },
    });
    assert.equal(billing.statusCode, 200);
    assert.equal(read(billing).hidden('return'), thread);
  });

  it('refuses a way back that is not a console path (no open redirect)', async () => {
    const { cookie, csrf } = await session();
    for (const foreign of [
      'https://evil.example/x',
      '//evil.example/x',
      '/\\evil.example',
      '/v1/cells',
      '/console/../v1',
    ]) {
      const billing = await t.app.inject({
        url: `/console/billing?${new URLSearchParams({ return: foreign })}`,
        headers: { cookie },
      });
      assert.doesNotMatch(billing.body, /name="return"/, foreign);
      const pay = await postForm(
        t,
        '/console/billing/pay',
        { csrf_token: csrf, intent: 'top_up', amount_usd: '25', rail: 'card_processor', return: foreign },
        { cookie },
      );
      assert.equal(pay.statusCode, 303, pay.body);
      const location = new URL(String(pay.headers.location));
      assert.equal(location.searchParams.get('return'), null, foreign);
      // A checkout link edited by hand: the page links to Billing only.
      location.searchParams.set('return', foreign);
      const { page, paid } = await payAt(location.toString());
      for (const body of [page.body, paid.body]) {
        // Every link stays in the console (the Pay form posts to the page's own URL, as it came).
        assert.doesNotMatch(body, /<a [^>]*href="(?!\/console\/|#)/, foreign);
        assert.doesNotMatch(body, /Continue where you left off|Cancel and go back</, foreign);
        assert.match(body, /href="\/console\/billing"/);
      }
    }
  });
});
