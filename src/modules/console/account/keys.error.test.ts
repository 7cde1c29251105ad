// The console's API-key form at the cap on active keys (100 per organization): the create is a
// form error on the keys page (409, the name kept, the cap named), never an error page, and
// nothing is created.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { MAX_ACTIVE_KEYS } from '../../organizations/service.ts';
import { page, post, signedInOrganization, type SignedInOrg } from '../../../../test/support/console-account.ts';
import { page as read } from '../../../../test/support/page.ts';

describe('console API keys at the cap', () => {
  const t = useApp();
  let org: SignedInOrg;
  before(async () => {
    org = await signedInOrganization(t);
  });

  const activeCount = async () =>
    (await t.app.inject({ url: '/v1/auth/keys?limit=200', headers: org.headers })).json().keys.length as number;

  it('shows the 409 of the 101st key as a form error on the keys page, keeping the name', async () => {
    for (let held = await activeCount(); held < MAX_ACTIVE_KEYS; held++) {
      const created = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers, payload: {} });
      assert.equal(created.statusCode, 201, created.body);
    }
    const refused = await post(t, org, '/console/keys', { name: 'one too many' });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.headers['content-type'] as string, /^text\/html/);
    const form = read(refused);
    assert.equal(form.document.title, 'Error: API keys — Cellgate Console');
    // The refusal is announced with the field, which keeps what was typed.
    const name = form.getByRole<HTMLInputElement>('textbox', {
      name: 'Key name',
      description: / The organization already holds 100 active API keys, the most it may have; revoke one/,
    });
    assert.deepEqual([name.value, name.getAttribute('aria-invalid')], ['one too many', 'true']);
    // The list of keys is still there, to revoke one.
    form.getByRole('table', { name: /^Active API keys of / });
    assert.equal(await activeCount(), MAX_ACTIVE_KEYS, 'nothing was created');
    assert.equal((await page(t, org, '/console/keys')).statusCode, 200);
  });
});
