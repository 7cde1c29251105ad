import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, useApp } from '../../../../test/harness.ts';
import { setCookies } from '../../../../test/support/console.ts';
import { page as get, post, signedInOrganization, type SignedInOrg } from '../../../../test/support/console-account.ts';
import { page, textOf, type Page } from '../../../../test/support/page.ts';

const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/;
/** The row of the keys table with this name: [name, prefix, created, last used, action]. */
const keyRow = (keys: Page, name: string) => keys.rows(/^Active API keys of /).find((row) => row[0] === name);

describe('console API keys', () => {
  const t = useApp();
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  const apiWith = (key: string, url = '/v1/auth/whoami') => t.app.inject({ url, headers: bearer(key) });

  /** Posts the create form and follows its 303 with the flash cookie it sets, as a browser does. */
  async function create(name: string) {
    const posted = await post(t, org, '/console/keys', { name });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, '/console/keys');
    const flash = setCookies(posted)[0];
    assert.match(
      flash,
      /^cg_console_new_key=[A-Za-z0-9_-]+; Path=\/console\/keys; Max-Age=300; HttpOnly; SameSite=Strict$/,
    );
    const shown = await t.app.inject({
      url: '/console/keys',
      headers: { cookie: `${org.session.cookie}; ${flash.split(';')[0]}` },
    });
    return { posted, flash, shown };
  }

  it("lists the organization's keys with name, prefix, creation and last use", async () => {
    const response = await get(t, org, '/console/keys');
    assert.equal(response.statusCode, 200);
    const keys = page(response);
    keys.getByRole('link', { name: 'API keys', current: 'page' });
    const [, prefix, created, lastUsed] = keyRow(keys, 'sign-up') ?? [];
    assert.equal(prefix, `${org.apiKey.slice(0, 12)}…`);
    // The harness used the sign-up key: its last use is shown.
    assert.match(created, TIME);
    assert.match(lastUsed, TIME);
    assert.ok(!response.body.includes(org.apiKey), 'never the whole key');
    keys.getByRole('textbox', { name: 'Key name' });
  });

  it('creates a key shown once, on the answer to the post; it works against the API and is never shown again', async () => {
    const { posted, flash, shown: created } = await create(' production ');
    assert.ok(!posted.body.includes('cg_live_'), 'the redirect carries no key in its body');
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    assert.match(
      String(setCookies(created)[0]),
      /^cg_console_new_key=; Path=\/console\/keys; Max-Age=0;/,
      'the page clears the flash',
    );
    const shown = page(created);
    const key = shown.valueOf('Your new API key');
    assert.match(key, /^cg_live_[A-Za-z0-9]{32}$/, 'the new key is on the page');
    // The notice is the status that carries the heading (the Copy button has its own status).
    const notice = shown.getAllByRole('status').find((status) => /^Key created/.test(textOf(status)));
    assert.ok(notice, 'the notice of the new key');
    assert.match(textOf(notice), /^Key created: production Copy it now: it will not be shown again\./);
    shown.within(notice).getByRole('heading', { level: 2, name: 'Key created: production' });

    const who = await apiWith(key);
    assert.equal(who.statusCode, 200, who.body);
    assert.equal(who.json().organization_id, org.organizationId);
    assert.equal((await apiWith(key, '/v1/cells')).statusCode, 200);

    const reload = await get(t, org, '/console/keys');
    assert.ok(!reload.body.includes(key), 'not shown on reload');
    // The flash of another organization (a second sign-in in the same browser) is not shown.
    const other = await signedInOrganization(t);
    const elsewhere = await t.app.inject({
      url: '/console/keys',
      headers: { cookie: `${other.session.cookie}; ${flash.split(';')[0]}` },
    });
    assert.ok(!elsewhere.body.includes(key), 'another organization never sees it');
    const garbled = await t.app.inject({
      url: '/console/keys',
      headers: { cookie: `${org.session.cookie}; cg_console_new_key=not-json` },
    });
    assert.equal(garbled.statusCode, 200);
    assert.equal(page(garbled).queryByText(/Copy it now/), null);
    const reloaded = page(reload);
    assert.equal(reloaded.queryByText(/Copy it now/), null);
    assert.equal(keyRow(reloaded, 'production')?.[1], `${key.slice(0, 12)}…`);
  });

  it('revokes a key after a confirmation page: the API answers 401 with it', async () => {
    const key = page((await create('old-agent')).shown).valueOf('Your new API key');
    const list = page(await get(t, org, '/console/keys'));
    const confirm = list.href(`Revoke the key old-agent (${key.slice(0, 12)}…)`);
    assert.match(confirm, /^\/console\/keys\/key_\w+\/revoke$/);

    const confirmation = await get(t, org, confirm);
    assert.equal(confirmation.statusCode, 200);
    const asked = page(confirmation);
    asked.getByRole('heading', { level: 1, name: 'Revoke the key “old-agent”?' });
    asked.getByText(/refused at once \(401\)/);
    const revoke = asked.getByRole<HTMLButtonElement>('button', { name: 'Revoke key' });
    assert.equal(revoke.form?.getAttribute('action'), confirm);
    assert.equal((await apiWith(key)).statusCode, 200, 'still works until confirmed');

    const revoked = await post(t, org, confirm);
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, '/console/keys?notice=revoked');
    assert.equal((await apiWith(key)).statusCode, 401);
    const after = page(await get(t, org, '/console/keys?notice=revoked'));
    assert.match(textOf(after.getByRole('status')), /^Key revoked/);
    assert.equal(after.queryByText(/old-agent/), null);
    assert.equal(keyRow(after, 'old-agent'), undefined);
    assert.equal((await get(t, org, confirm)).statusCode, 404, 'a revoked key has no confirmation page');
  });
});
