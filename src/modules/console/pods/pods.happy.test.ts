import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { postForm, signInConsole, type ConsoleSignIn } from '../../../../test/support/console.ts';
import { getPage, listening, LiveClient, liveUrlOf } from '../../../../test/support/console-conversations.ts';
import { lines, ok, recipients, runJob, type Org } from '../../../../test/support/pods.ts';
import { claim, report, type Line } from '../../../../test/support/messages.ts';
import { page as read, textOf } from '../../../../test/support/page.ts';

describe('console pods', () => {
  const t = useApp();
  let org: Org;
  let cells: Line[];
  let signIn: ConsoleSignIn;
  let podId: string;
  before(async () => {
    await listening(t);
    cells = await lines(t, 2);
    org = cells[0].org;
    signIn = await signInConsole(t, org.email);
  });

  const post = (url: string, fields: Record<string, string>) =>
    postForm(t, url, { csrf_token: signIn.csrf, ...fields }, signIn.headers);
  const pod = () => ok(t, org, 'GET', `/v1/pods/${podId}`);

  it('creates a pod from the organization’s cells, once per form, and lists it', async () => {
    const page = await getPage(t, '/console/pods', signIn);
    assert.equal(page.statusCode, 200);
    const pods = read(page);
    pods.getByRole('link', { name: 'Pods', current: 'page' });
    pods.getByText('No pods yet.');
    const clientId = pods.hidden('client_id') as string;
    const fields = { client_id: clientId, name: 'Outreach', cell_0: cells[0].cell.id };
    const created = await post('/console/pods', fields);
    assert.equal(created.statusCode, 303, created.body);
    podId = String(created.headers.location).split('/').at(-1) as string;
    assert.match(podId, /^pod_/);
    // The same form sent twice: one pod.
    const again = await post('/console/pods', fields);
    assert.equal(again.headers.location, created.headers.location);
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 1);
    assert.deepEqual((await pod()).cell_ids, [cells[0].cell.id]);
    assert.equal(read(await getPage(t, '/console/pods', signIn)).href('Outreach'), `/console/pods/${podId}`);
  });

  it('renames a pod, replaces its cells and sets and clears its quiet hours', async () => {
    const edited = await post(`/console/pods/${podId}`, {
      name: 'Night shift',
      cell_0: cells[0].cell.id,
      cell_1: cells[1].cell.id,
    });
    assert.equal(edited.statusCode, 303, edited.body);
    assert.equal(edited.headers.location, `/console/pods/${podId}#edit`);
    const now = await pod();
    assert.equal(now.name, 'Night shift');
    assert.deepEqual([...now.cell_ids].sort(), [cells[0].cell.id, cells[1].cell.id].sort());
    const page = read(await getPage(t, `/console/pods/${podId}`, signIn));
    page.getByRole('heading', { level: 1, name: 'Night shift' });
    assert.equal(page.getAllByRole('checkbox', { checked: true }).length, 2);

    const quiet = await post(`/console/pods/${podId}/quiet-hours`, {
      start: '22:00',
      end: '07:00',
      time_zone: 'Europe/Paris',
    });
    assert.equal(quiet.statusCode, 303, quiet.body);
    assert.deepEqual((await pod()).quiet_hours, { start: '22:00', end: '07:00', time_zone: 'Europe/Paris' });
    assert.equal((await post(`/console/pods/${podId}/quiet-hours`, { action: 'clear' })).statusCode, 303);
    assert.equal((await pod()).quiet_hours, null);
  });

  it('creates, edits, sends and deletes drafts', async () => {
    const draftFields = (to: string, body: string) => ({ client_id: `d-${to}`, to, body });
    assert.equal(
      (await post(`/console/pods/${podId}/drafts`, draftFields('+12125550101', 'Hi there'))).statusCode,
      303,
    );
    assert.equal((await post(`/console/pods/${podId}/drafts`, draftFields('+12125550102', 'Bye now'))).statusCode, 303);
    const drafts = (await ok(t, org, 'GET', `/v1/pods/${podId}/drafts`)).drafts as { id: string; to: string }[];
    const first = drafts.find((d) => d.to === '+12125550101') as { id: string };
    const second = drafts.find((d) => d.to === '+12125550102') as { id: string };
    const drafted = read(await getPage(t, `/console/pods/${podId}`, signIn)).section('Drafts');
    const draftRows = drafted.rows(/^Messages written but not sent yet/).map((row) => row.slice(0, 2));
    assert.deepEqual(draftRows.sort(), [
      ['+1 212 555 0101', 'Hi there'],
      ['+1 212 555 0102', 'Bye now'],
    ]);
    drafted.getByRole('button', { name: 'Send the draft to +1 212 555 0101' });

    const edit = await getPage(t, `/console/pods/${podId}/drafts/${first.id}`, signIn);
    assert.equal(edit.statusCode, 200);
    assert.equal(read(edit).valueOf('Message'), 'Hi there');
    const saved = await post(`/console/pods/${podId}/drafts/${first.id}`, { to: '+12125550103', body: 'Hi again' });
    assert.equal(saved.statusCode, 303, saved.body);
    const edited = await ok(t, org, 'GET', `/v1/pods/${podId}/drafts/${first.id}`);
    assert.equal(edited.to, '+12125550103');
    assert.equal(edited.body, 'Hi again');

    const sent = await post(`/console/pods/${podId}/drafts/${first.id}/send`, {});
    assert.equal(sent.statusCode, 303, sent.body);
    const afterSend = await ok(t, org, 'GET', `/v1/pods/${podId}/drafts/${first.id}`);
    assert.equal(afterSend.status, 'sent');
    assert.match(afterSend.message_id, /^msg_/);
    assert.equal((await post(`/console/pods/${podId}/drafts/${second.id}/discard`, {})).statusCode, 303);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/drafts/${second.id}`)).status, 'discarded');
    const left = read(await getPage(t, `/console/pods/${podId}`, signIn)).section('Drafts');
    assert.equal(left.queryByRole('table'), null, 'sent and deleted drafts leave the list');
  });

  it('keeps contact lists and ignored numbers', async () => {
    const created = await post(`/console/pods/${podId}/lists`, {
      name: 'Regulars',
      numbers: '+1 212 555 0001\r\n+12125550002,\r\n',
    });
    assert.equal(created.statusCode, 303, created.body);
    const [list] = (await ok(t, org, 'GET', `/v1/pods/${podId}/lists`)).lists as { id: string; number_count: number }[];
    assert.equal(list.number_count, 2);
    const lists = read(await getPage(t, `/console/pods/${podId}`, signIn)).section('Contact lists');
    assert.equal(textOf(lists.getByRole('listitem')), 'Regulars (2 numbers) Delete');
    assert.equal((await post(`/console/pods/${podId}/lists/${list.id}/delete`, {})).statusCode, 303);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/lists`)).lists.length, 0);

    assert.equal((await post(`/console/pods/${podId}/ignore`, { participant: '+1 212 555 0999' })).statusCode, 303);
    assert.deepEqual(
      (await ok(t, org, 'GET', `/v1/pods/${podId}/ignore`)).ignored.map((i: { participant: string }) => i.participant),
      ['+12125550999'],
    );
    const ignored = read(await getPage(t, `/console/pods/${podId}`, signIn));
    ignored.getByRole('button', { name: 'Stop ignoring +1 212 555 0999' });
    assert.equal((await post(`/console/pods/${podId}/ignore/remove`, { participant: '+12125550999' })).statusCode, 303);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/ignore`)).ignored.length, 0);
  });

  it('edits a contact list on its page: renames it, adds and removes numbers', async () => {
    const created = await post(`/console/pods/${podId}/lists`, { name: 'Friday', numbers: '+12125550011' });
    assert.equal(created.statusCode, 303, created.body);
    const [{ id: listId }] = (await ok(t, org, 'GET', `/v1/pods/${podId}/lists`)).lists as { id: string }[];
    const url = `/console/pods/${podId}/lists/${listId}`;
    assert.equal(read(await getPage(t, `/console/pods/${podId}`, signIn)).href('Friday'), url);
    const page = await getPage(t, url, signIn);
    assert.equal(page.statusCode, 200);
    const friday = read(page);
    friday.getByRole('heading', { level: 1, name: 'Friday' });
    friday.getByRole('button', { name: 'Remove +1 212 555 0011' });

    const renamed = await post(url, { name: ' Friday regulars ' });
    assert.equal(renamed.statusCode, 303, renamed.body);
    assert.equal(renamed.headers.location, `${url}#rename`);
    const added = await post(`${url}/add`, { numbers: '+1 212 555 0012\r\n+12125550013\n+12125550011' });
    assert.equal(added.statusCode, 303, added.body);
    assert.equal(added.headers.location, `${url}#numbers`);
    let list = await ok(t, org, 'GET', `/v1/pods/${podId}/lists/${listId}`);
    assert.equal(list.name, 'Friday regulars');
    assert.deepEqual([...list.numbers].sort(), ['+12125550011', '+12125550012', '+12125550013']);

    // One number by its button, two by the form (one of them not on the list).
    assert.equal((await post(`${url}/remove`, { numbers: '+12125550011' })).statusCode, 303);
    assert.equal((await post(`${url}/remove`, { numbers: '+12125550012\n+12125550999' })).statusCode, 303);
    list = await ok(t, org, 'GET', `/v1/pods/${podId}/lists/${listId}`);
    assert.deepEqual(list.numbers, ['+12125550013']);
    read(await getPage(t, url, signIn)).getByText(/^1 number\./);
    assert.equal((await post(`/console/pods/${podId}/lists/${listId}/delete`, {})).statusCode, 303);
  });

  it('starts a broadcast and shows its progress live until it completes', async () => {
    const to = recipients(3, 700).join('\n');
    const started = await post(`/console/pods/${podId}/cycles`, {
      client_id: 'bc-1',
      mode: 'broadcast',
      body: 'We open at 9.',
      to,
    });
    assert.equal(started.statusCode, 303, started.body);
    const jobUrl = String(started.headers.location);
    assert.match(jobUrl, new RegExp(`^/console/pods/${podId}/jobs/job_`));
    const jobId = jobUrl.split('/').at(-1) as string;
    const page = await getPage(t, jobUrl, signIn);
    assert.equal(page.statusCode, 200);
    const running = read(page);
    running.getByRole('heading', { level: 1, name: 'Broadcast of Night shift' });
    running.getByText(/0 of 3 handled$/);
    // The Cancel button is a live part, which the live view reads again when the job changes:
    // once the job ends, an open page loses it.
    const actions = running.document.getElementById('job-actions');
    assert.ok(actions);
    assert.ok(actions.hasAttribute('data-live-part'), 'the actions are a live part');
    running.within(actions).getByRole('button', { name: 'Cancel the job' });
    const live = await LiveClient.ready(t, liveUrlOf(page.body), signIn.headers);

    await t.services.cycleWorker.tick();
    // The phones send and the carrier delivers: each report moves the counts, and the page hears of it.
    let claimedCount = 0;
    for (const line of cells)
      for (const message of await claim(t, line)) {
        claimedCount += 1;
        assert.equal((await report(t, line, message.id, { event: 'sent' })).statusCode, 200);
        assert.equal((await report(t, line, message.id, { event: 'delivered' })).statusCode, 200);
      }
    assert.ok(claimedCount >= 3, 'the three broadcast texts (and the draft sent before)');
    await live.until(() => live.frames.some((f) => f.event === 'refresh'), 'a refresh frame');
    assert.equal(live.frames.find((f) => f.event === 'refresh')?.data.announce, 'The counts changed.');
    const job = await runJob(t, org, podId, jobId);
    assert.equal(job.status, 'completed');
    await live.until(
      () => live.frames.filter((f) => f.event === 'refresh').length >= 7,
      'six message reports and the end',
    );
    live.close();
    const ended = read(await getPage(t, jobUrl, signIn));
    ended.getByText(/3 of 3 handled$/);
    ended.getByText('Completed');
    // An ended job has no live stream and no cancel button (its live part stays, empty).
    assert.equal(ended.document.querySelector('[data-live-url]'), null);
    assert.equal(ended.queryByRole('button', { name: 'Cancel the job' }), null);
    assert.equal(ended.document.getElementById('job-actions')?.hasAttribute('data-live-part'), true);
    // The pod page lists the job.
    assert.equal(read(await getPage(t, `/console/pods/${podId}`, signIn)).href(/^Broadcast/), jobUrl);
  });

  it('deletes a pod after a confirmation page: its cells stay and leave it', async () => {
    const podPage = read(await getPage(t, `/console/pods/${podId}`, signIn));
    assert.equal(podPage.href('Delete Night shift'), `/console/pods/${podId}/delete`);
    const confirm = await getPage(t, `/console/pods/${podId}/delete`, signIn);
    assert.equal(confirm.statusCode, 200);
    const asked = read(confirm);
    asked.getByRole('heading', { level: 1, name: 'Delete Night shift?' });
    asked.getByText(/Its 2 cells stay yours and leave the pod/);
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 1, 'the page changes nothing');
    const deleted = await post(`/console/pods/${podId}/delete`, {});
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, '/console/pods');
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 0);
    for (const line of cells) assert.equal((await ok(t, org, 'GET', `/v1/cells/${line.cell.id}`)).pod_id, null);
    assert.equal((await getPage(t, `/console/pods/${podId}`, signIn)).statusCode, 404);
    assert.equal((await getPage(t, `/console/pods/${podId}/delete`, signIn)).statusCode, 404);
    read(await getPage(t, '/console/pods', signIn)).getByText('No pods yet.');
  });
});
