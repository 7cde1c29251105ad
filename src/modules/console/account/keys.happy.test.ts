import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, useApp } from '../../../../test/harness.ts';
import { setCookies } from '../../../../test/support/console.ts';
import { page, post, signedInOrganization, type SignedInOrg } from '../../../../test/support/console-account.ts';

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
    const response = await page(t, org, '/console/keys');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /<a href="\/console\/keys" aria-current="page">API keys<\/a>/);
    assert.match(response.body, /<caption>Active API keys of /);
    assert.match(response.body, /<td data-label="Name"><strong>sign-up<\/strong><\/td>/);
    assert.match(response.body, new RegExp(`<td data-label="Key" class="mono">${org.apiKey.slice(0, 12)}…</td>`));
    // The harness used the sign-up key: its last use is shown.
    assert.match(response.body, /<\/time><\/td>\n<td data-label="Last used"><time datetime="[^"]+">/);
    assert.ok(!response.body.includes(org.apiKey), 'never the whole key');
    assert.match(response.body, /<label for="key-name">Key name<\/label>/);
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
    const key = created.body.match(
      /<input id="new-key" class="secret mono" type="text" value="(cg_live_[A-Za-z0-9]{32})" readonly/,
    )?.[1];
    assert.ok(key, 'the new key is on the page');
    assert.match(
      created.body,
      /<div class="notice ok" role="status"><h2 id="new-key-heading">Key created: production<\/h2><p><strong>Copy it now: it will not be shown again\.<\/strong>/,
    );
    assert.match(created.body, /<label for="new-key">Your new API key<\/label>/);

    const who = await apiWith(key);
    assert.equal(who.statusCode, 200, who.body);
    assert.equal(who.json().organization_id, org.organizationId);
    assert.equal((await apiWith(key, '/v1/cells')).statusCode, 200);

    const reload = await page(t, org, '/console/keys');
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
    assert.doesNotMatch(garbled.body, /Copy it now/);
    assert.doesNotMatch(reload.body, /Copy it now/);
    assert.match(reload.body, /<td data-label="Name"><strong>production<\/strong><\/td>/);
    assert.match(reload.body, new RegExp(`<td data-label="Key" class="mono">${key.slice(0, 12)}…</td>`));
  });

  it('revokes a key after a confirmation page: the API answers 401 with it', async () => {
    const key = (await create('old-agent')).shown.body.match(/value="(cg_live_[A-Za-z0-9]{32})"/)?.[1] as string;
    const list = (await page(t, org, '/console/keys')).body;
    const confirm = list.match(
      /<a class="button danger small-button" href="(\/console\/keys\/key_[^"]+\/revoke)" aria-label="Revoke the key old-agent \(cg_live_\w{4}…\)">Revoke…<\/a>/,
    )?.[1];
    assert.ok(confirm, list);

    const confirmation = await page(t, org, confirm);
    assert.equal(confirmation.statusCode, 200);
    assert.match(confirmation.body, /<h1>Revoke the key “old-agent”\?<\/h1>/);
    assert.match(confirmation.body, /refused at once \(401\)/);
    assert.match(confirmation.body, new RegExp(`<form method="post" action="${confirm}">`));
    assert.equal((await apiWith(key)).statusCode, 200, 'still works until confirmed');

    const revoked = await post(t, org, confirm);
    assert.equal(revoked.statusCode, 303);
    assert.equal(revoked.headers.location, '/console/keys?notice=revoked');
    assert.equal((await apiWith(key)).statusCode, 401);
    const after = (await page(t, org, '/console/keys?notice=revoked')).body;
    assert.match(after, /<div class="notice ok" role="status">Key revoked/);
    assert.doesNotMatch(after, /old-agent/);
    assert.equal((await page(t, org, confirm)).statusCode, 404, 'a revoked key has no confirmation page');
  });
});
