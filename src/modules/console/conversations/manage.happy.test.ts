// Creating, renaming and releasing cells from the console, through the services the API uses;
// and their refusals: bad names, a bad plan, a missing CSRF token, another organization's cell.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../../test/harness.ts';
import { consoleLine, getPage, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { postForm, signInConsole } from '../../../../test/support/console.ts';
import { page } from '../../../../test/support/page.ts';

describe('console cell management', () => {
  const t = useApp();
  let line: ConsoleLine;
  let other: ConsoleLine;
  before(async () => {
    line = await consoleLine(t);
    other = await consoleLine(t);
  });

  const post = (who: ConsoleLine, url: string, fields: Record<string, string>) =>
    postForm(t, url, { csrf_token: who.signIn.csrf, ...fields }, who.signIn.headers);
  const apiCell = (who: ConsoleLine, id: string) => t.app.inject({ url: `/v1/cells/${id}`, headers: who.org.headers });

  it('links Create, Rename and Release from the cells pages', async () => {
    const list = page(await getPage(t, '/console/cells', line.signIn));
    assert.equal(list.href('Create a cell'), '/console/cells/new');
    const cell = page(await getPage(t, `/console/cells/${line.cell.id}`, line.signIn));
    assert.equal(cell.href('Rename'), `/console/cells/${line.cell.id}/rename`);
    assert.equal(cell.href('Release'), `/console/cells/${line.cell.id}/release`);
  });

  it('creates a cell (an active organization: no plan to choose) and shows it', async () => {
    const form = await getPage(t, '/console/cells/new', line.signIn);
    assert.equal(form.statusCode, 200);
    assert.equal(page(form).queryByRole('group', { name: 'Plan' }), null, 'the plan is chosen already');
    const created = await post(line, '/console/cells/new', { display_name: '  Sales line  ' });
    assert.equal(created.statusCode, 303, created.body);
    const id = String(created.headers.location).split('/').pop() as string;
    const api = await apiCell(line, id);
    assert.equal(api.statusCode, 200);
    assert.equal(api.json().display_name, 'Sales line');
  });

  it('renames a cell and the API reads the new name', async () => {
    const form = await getPage(t, `/console/cells/${line.cell.id}/rename`, line.signIn);
    assert.equal(form.statusCode, 200);
    assert.equal(page(form).valueOf('Cell name'), 'Support line');
    const renamed = await post(line, `/console/cells/${line.cell.id}/rename`, { display_name: 'Front desk' });
    assert.equal(renamed.statusCode, 303);
    assert.equal(renamed.headers.location, `/console/cells/${line.cell.id}`);
    assert.equal((await apiCell(line, line.cell.id)).json().display_name, 'Front desk');
  });

  it('refuses bad names as form errors, keeping what was typed, and a plan that does not exist', async () => {
    for (const [url, status] of [
      ['/console/cells/new', 400],
      [`/console/cells/${line.cell.id}/rename`, 400],
    ] as const) {
      // Each error is announced with its field (its description).
      const empty = await post(line, url, { display_name: '   ' });
      assert.equal(empty.statusCode, status, url);
      page(empty).getByRole('textbox', { name: 'Cell name', description: /Enter a name for the cell\.$/ });
      const long = await post(line, url, { display_name: 'x'.repeat(101) });
      assert.equal(long.statusCode, status, url);
      const kept = page(long).getByRole<HTMLInputElement>('textbox', {
        name: 'Cell name',
        description: /The name is too long \(at most 100 characters\)\.$/,
      });
      assert.equal(kept.value, 'x'.repeat(101));
    }
    // A plan is chosen before the first one only (billing inactive).
    const fresh = await verifiedOrganization(t);
    const signIn = await signInConsole(t, fresh.email);
    const tier = await postForm(
      t,
      '/console/cells/new',
      { csrf_token: signIn.csrf, display_name: 'Line', tier: 'platinum' },
      signIn.headers,
    );
    assert.equal(tier.statusCode, 400);
    const refused = page(tier);
    refused.getByRole('group', { name: 'Plan', description: 'Choose one of the plans.' });
    assert.equal(refused.valueOf('Cell name'), 'Line');
  });

  it('releases a cell only after its confirmation page, then lists it no more', async () => {
    const created = await post(line, '/console/cells/new', { display_name: 'Temporary' });
    const id = String(created.headers.location).split('/').pop() as string;
    const confirm = await getPage(t, `/console/cells/${id}/release`, line.signIn);
    assert.equal(confirm.statusCode, 200);
    const asked = page(confirm);
    asked.getByRole('heading', { level: 1, name: 'Release Temporary?' });
    asked.getByText(/This cannot be undone\./);
    asked.getByRole('button', { name: 'Release Temporary' });
    assert.equal((await apiCell(line, id)).statusCode, 200, 'the page alone releases nothing');
    const released = await post(line, `/console/cells/${id}/release`, {});
    assert.equal(released.statusCode, 303);
    assert.equal(released.headers.location, '/console/cells?notice=released');
    assert.equal((await apiCell(line, id)).statusCode, 404);
    const list = await getPage(t, '/console/cells?notice=released', line.signIn);
    page(list).getByText('Cell released: its number is no longer yours.');
    assert.doesNotMatch(list.body, new RegExp(id));
  });

  it("answers 404 for another organization's cell on every page and form, changing nothing", async () => {
    for (const action of ['rename', 'release']) {
      const missing = await getPage(t, `/console/cells/${other.cell.id}/${action}`, line.signIn);
      assert.equal(missing.statusCode, 404, action);
      page(missing).getByRole('heading', { level: 1, name: 'Cell not found' });
      const posted = await post(line, `/console/cells/${other.cell.id}/${action}`, { display_name: 'Mine now' });
      assert.equal(posted.statusCode, 404, action);
    }
    const theirs = (await apiCell(other, other.cell.id)).json();
    assert.equal(theirs.display_name, 'Support line');
    assert.equal(theirs.status, 'active');
  });

  it('refuses every form without the CSRF token (403) or signed out (401)', async () => {
    for (const url of [
      '/console/cells/new',
      `/console/cells/${line.cell.id}/rename`,
      `/console/cells/${line.cell.id}/release`,
    ]) {
      const forged = await postForm(t, url, { display_name: 'Forged' }, line.signIn.headers);
      assert.equal(forged.statusCode, 403, url);
      const signedOut = await postForm(t, url, { csrf_token: line.signIn.csrf, display_name: 'Forged' });
      assert.equal(signedOut.statusCode, 401, url);
    }
    assert.equal((await apiCell(line, line.cell.id)).json().status, 'active');
  });
});
