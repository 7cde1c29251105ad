// Creating, renaming and releasing cells from the console, through the services the API uses;
// and their refusals: bad names, a bad plan, a missing CSRF token, another organization's cell.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../../test/harness.ts';
import { consoleLine, getPage, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { postForm, signInConsole } from '../../../../test/support/console.ts';

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
    const list = await getPage(t, '/console/cells', line.signIn);
    assert.match(list.body, /<a class="button primary" href="\/console\/cells\/new">Create a cell<\/a>/);
    const cell = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    assert.match(cell.body, new RegExp(`href="/console/cells/${line.cell.id}/rename">Rename</a>`));
    assert.match(cell.body, new RegExp(`href="/console/cells/${line.cell.id}/release">Release</a>`));
  });

  it('creates a cell (an active organization: no plan to choose) and shows it', async () => {
    const form = await getPage(t, '/console/cells/new', line.signIn);
    assert.equal(form.statusCode, 200);
    assert.doesNotMatch(form.body, /<legend>Plan<\/legend>/, 'the plan is chosen already');
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
    assert.match(form.body, /<input id="display-name" name="display_name" type="text" value="Support line"/);
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
      const empty = await post(line, url, { display_name: '   ' });
      assert.equal(empty.statusCode, status, url);
      assert.match(empty.body, /<p class="field-error" id="display-name-error">Enter a name for the cell\.<\/p>/);
      const long = await post(line, url, { display_name: 'x'.repeat(101) });
      assert.equal(long.statusCode, status, url);
      assert.match(long.body, /The name is too long \(at most 100 characters\)\./);
      assert.match(long.body, new RegExp(`value="${'x'.repeat(101)}"`));
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
    assert.match(tier.body, /<fieldset class="field" aria-describedby="tier-error">/);
    assert.match(tier.body, /<p class="field-error" id="tier-error">Choose one of the plans\.<\/p>/);
    assert.match(tier.body, /value="Line"/);
  });

  it('releases a cell only after its confirmation page, then lists it no more', async () => {
    const created = await post(line, '/console/cells/new', { display_name: 'Temporary' });
    const id = String(created.headers.location).split('/').pop() as string;
    const confirm = await getPage(t, `/console/cells/${id}/release`, line.signIn);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /<h1>Release Temporary\?<\/h1>/);
    assert.match(confirm.body, /This cannot be undone\./);
    assert.match(confirm.body, /<button type="submit" class="danger">Release Temporary<\/button>/);
    assert.equal((await apiCell(line, id)).statusCode, 200, 'the page alone releases nothing');
    const released = await post(line, `/console/cells/${id}/release`, {});
    assert.equal(released.statusCode, 303);
    assert.equal(released.headers.location, '/console/cells?notice=released');
    assert.equal((await apiCell(line, id)).statusCode, 404);
    const list = await getPage(t, '/console/cells?notice=released', line.signIn);
    assert.match(list.body, /Cell released: its number is no longer yours\./);
    assert.doesNotMatch(list.body, new RegExp(id));
  });

  it("answers 404 for another organization's cell on every page and form, changing nothing", async () => {
    for (const action of ['rename', 'release']) {
      const page = await getPage(t, `/console/cells/${other.cell.id}/${action}`, line.signIn);
      assert.equal(page.statusCode, 404, action);
      assert.match(page.body, /<h1>Cell not found<\/h1>/);
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
