// Ignoring the other party from a conversation's page: the cell's ignore list of the API (through
// invoke), said on the page; the party's later texts are kept and still shown on that page; a pod's
// ignore is pointed to, not changed here. And the bad cases: CSRF, another organization, a bad number.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { postForm } from '../../../../test/support/console.ts';
import { consoleLine, getPage, threadUrl, type ConsoleLine } from '../../../../test/support/console-conversations.ts';
import { inbound } from '../../../../test/support/messages.ts';
import { createPod, ok } from '../../../../test/support/pods.ts';
import { page as read } from '../../../../test/support/page.ts';

const PARTICIPANT = '+14155550188';

describe('console conversations: ignoring the other party', () => {
  const t = useApp();
  let line: ConsoleLine;
  let other: ConsoleLine;
  before(async () => {
    line = await consoleLine(t);
    other = await consoleLine(t);
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Buy now!' })).statusCode, 201);
  });

  const post = (url: string, signIn = line.signIn, csrf: string | null = signIn.csrf) =>
    postForm(t, url, csrf === null ? {} : { csrf_token: csrf }, signIn.headers);
  const ignoredOnCell = async () =>
    (await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/ignore`)).ignored.map(
      (entry: { participant: string }) => entry.participant,
    );

  it('ignores the party on the cell, keeps showing their texts there, and stops ignoring', async () => {
    const thread = threadUrl(line.cell.id, PARTICIPANT);
    let page = await getPage(t, thread, line.signIn);
    read(page).getByRole('button', { name: 'Ignore +1 415 555 0188 on this cell' });

    const ignored = await post(`${thread}/ignore`);
    assert.equal(ignored.statusCode, 303, ignored.body);
    assert.equal(ignored.headers.location, `${thread}?notice=ignored#ignore`);
    assert.deepEqual(await ignoredOnCell(), [PARTICIPANT]);
    // Again: nothing changes (the API's 200 for an existing entry).
    assert.equal((await post(`${thread}/ignore`)).statusCode, 303);
    assert.deepEqual(await ignoredOnCell(), [PARTICIPANT]);

    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'Last chance!' })).statusCode, 201);
    page = await getPage(t, String(ignored.headers.location), line.signIn);
    const ignoredPage = read(page);
    ignoredPage.getByText(/Ignored on this cell: their texts are kept/);
    ignoredPage.section('Ignore').getByText('+1 415 555 0188 is ignored on this cell.');
    ignoredPage.getByText('Last chance!');

    const unignored = await post(`${thread}/unignore`);
    assert.equal(unignored.statusCode, 303);
    assert.deepEqual(await ignoredOnCell(), []);
    page = await getPage(t, String(unignored.headers.location), line.signIn);
    const again = read(page);
    again.getByText(/No longer ignored on this cell\./);
    again.getByRole('button', { name: 'Ignore +1 415 555 0188 on this cell' });
  });

  it("points to the pod when the party is ignored on the cell's pod", async () => {
    const pod = await createPod(t, line.org, [line.cell.id]);
    await ok(t, line.org, 'POST', `/v1/pods/${pod.id}/ignore`, { participant: PARTICIPANT }, 201);
    const page = await getPage(t, threadUrl(line.cell.id, PARTICIPANT), line.signIn);
    const thread = read(page);
    assert.equal(thread.href("this cell's pod"), `/console/pods/${pod.id}#ignore`);
    assert.equal(thread.queryByRole('button', { name: 'Stop ignoring' }), null);
    await ok(t, line.org, 'DELETE', `/v1/pods/${pod.id}`, undefined, 204);
  });

  it('refuses without the CSRF token, for another organization and for a bad number; nothing changes', async () => {
    const thread = threadUrl(line.cell.id, PARTICIPANT);
    assert.equal((await post(`${thread}/ignore`, line.signIn, null)).statusCode, 403);
    assert.equal((await post(`${thread}/ignore`, line.signIn, other.signIn.csrf)).statusCode, 403);
    // Another organization's session on this cell: 404, as an unknown cell.
    assert.equal((await post(`${thread}/ignore`, other.signIn)).statusCode, 404);
    // Not a phone number: no such conversation.
    assert.equal((await post(`${threadUrl(line.cell.id, 'not-a-number')}/ignore`)).statusCode, 404);
    assert.deepEqual(await ignoredOnCell(), []);
  });
});
