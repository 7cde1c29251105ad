import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../../test/harness.ts';
import { postForm, signInConsole, type ConsoleSignIn } from '../../../../test/support/console.ts';
import { getPage } from '../../../../test/support/console-conversations.ts';
import { createPod, lines, ok, type Org } from '../../../../test/support/pods.ts';
import type { Line } from '../../../../test/support/messages.ts';
import { page as read, textOf } from '../../../../test/support/page.ts';

describe('console pods: bad input, CSRF and other organizations', () => {
  const t = useApp();
  let org: Org;
  let cells: Line[];
  let signIn: ConsoleSignIn;
  let podId: string;
  let other: { org: Org; cell: Line; podId: string; draftId: string; listId: string; signIn: ConsoleSignIn };
  before(async () => {
    cells = await lines(t, 2);
    org = cells[0].org;
    signIn = await signInConsole(t, org.email);
    podId = (await createPod(t, org, [cells[0].cell.id])).id;
    const [otherLine] = await lines(t, 1);
    const otherPod = (await createPod(t, otherLine.org, [otherLine.cell.id])).id;
    const draft = await ok(
      t,
      otherLine.org,
      'POST',
      `/v1/pods/${otherPod}/drafts`,
      { client_id: 'x', to: '+12125550100', body: 'theirs' },
      201,
    );
    const list = await ok(
      t,
      otherLine.org,
      'POST',
      `/v1/pods/${otherPod}/lists`,
      { name: 'Theirs', numbers: ['+12125550100'] },
      201,
    );
    other = {
      org: otherLine.org,
      cell: otherLine,
      podId: otherPod,
      draftId: draft.id,
      listId: list.id,
      signIn: await signInConsole(t, otherLine.org.email),
    };
  });

  const post = (url: string, fields: Record<string, string>, csrf: string | null = signIn.csrf) =>
    postForm(t, url, { ...(csrf === null ? {} : { csrf_token: csrf }), ...fields }, signIn.headers);
  /** The page answered with the error of the field `id` matching `message`, announced with the field. */
  const fieldError = (body: string, id: string, message: RegExp) => {
    const { document } = read(body);
    assert.match(textOf(document.getElementById(`${id}-error`)), message, id);
    assert.ok(document.querySelector(`[aria-describedby~="${id}-error"]`), `${id}: its field announces it`);
  };

  it('answers each bad create with the form and its errors', async () => {
    let page = await post('/console/pods', { client_id: 'c1', name: ' ' });
    assert.equal(page.statusCode, 400);
    assert.equal(read(page).document.title, 'Error: Pods — Cellgate Console');
    fieldError(page.body, 'pod-name', /Enter a name/);
    page = await post('/console/pods', { client_id: 'c2', name: 'x'.repeat(101) });
    assert.equal(page.statusCode, 400);
    fieldError(page.body, 'pod-name', /100/);
    // Another organization's cell is not a cell of this one.
    page = await post('/console/pods', { client_id: 'c3', name: 'Theirs', cell_0: other.cell.cell.id });
    assert.equal(page.statusCode, 400);
    fieldError(page.body, 'pod-cells', /Line 1/);
    // A cell already in a pod.
    page = await post('/console/pods', { client_id: 'c4', name: 'Twice', cell_0: cells[0].cell.id });
    assert.equal(page.statusCode, 409);
    fieldError(page.body, 'pod-cells', /pod/);
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 1, 'nothing was created');
  });

  it('answers bad drafts, lists, ignored numbers, cycles and quiet hours on their fields', async () => {
    const base = `/console/pods/${podId}`;
    const cases: [string, Record<string, string>, number, string, RegExp][] = [
      // In the form's words: no API field name ("to", "to.1") in a message.
      [
        '/drafts',
        { client_id: 'd1', to: '555-0100', body: 'Hi' },
        400,
        'draft-to',
        /^The number must be a valid phone number/,
      ],
      ['/drafts', { client_id: 'd2', to: '+12125550100', body: '' }, 400, 'draft-body', /Enter a message/],
      ['/lists', { name: 'Bad', numbers: '+12125550001\nnot a number' }, 400, 'list-numbers', /Line 2/],
      ['/lists', { name: '', numbers: '+12125550001' }, 400, 'list-name', /Enter a name/],
      ['/ignore', { participant: '12345' }, 400, 'ignore-participant', /valid phone number/],
      [
        '/cycles',
        { client_id: 'j1', mode: 'broadcast', body: '', to: '+12125550001' },
        400,
        'cycle-body',
        /required for a broadcast/,
      ],
      [
        '/cycles',
        { client_id: 'j2', mode: 'broadcast', body: 'Hi', to: '+12125550001\nnope' },
        400,
        'cycle-to',
        /^Line 2: must be a valid phone number/,
      ],
      ['/quiet-hours', { start: '21:00', end: '08:00', time_zone: 'Nowhere/Land' }, 400, 'quiet-zone', /IANA name/],
      ['/quiet-hours', { start: '9pm', end: '08:00', time_zone: 'UTC' }, 400, 'quiet-start', /24-hour time/],
    ];
    for (const [path, fields, status, id, message] of cases) {
      const page = await post(`${base}${path}`, fields);
      assert.equal(page.statusCode, status, `${path} ${JSON.stringify(fields)}: ${page.body.slice(0, 200)}`);
      fieldError(page.body, id, message);
      assert.match(read(page).document.title, /^Error: /);
    }
    // A ring needs two active cells: the form says why.
    const ring = await post(`${base}/cycles`, { client_id: 'j3', mode: 'ring' });
    assert.equal(ring.statusCode, 409);
    // Said above the form it refuses.
    const alert = read(ring).getByRole('alert');
    assert.ok(textOf(alert));
    assert.match(alert.nextElementSibling?.getAttribute('action') ?? '', /^\/console\/pods\/pod_\w+\/cycles$/);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/drafts`)).drafts.length, 0);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/lists`)).lists.length, 0);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}`)).quiet_hours, null);
  });

  it('answers bad list edits on their fields and changes nothing', async () => {
    const list = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${podId}/lists`,
      { name: 'Edited', numbers: ['+12125550100'] },
      201,
    );
    const url = `/console/pods/${podId}/lists/${list.id}`;
    const cases: [string, Record<string, string>, string, RegExp][] = [
      ['', { name: ' ' }, 'list-name', /Enter a name/],
      ['', { name: 'x'.repeat(101) }, 'list-name', /100/],
      ['/add', { numbers: '+12125550101\nnot a number' }, 'add-numbers', /Line 2/],
      ['/add', { numbers: ' \n ' }, 'add-numbers', /Enter at least one number/],
      ['/remove', { numbers: '' }, 'remove-numbers', /Enter at least one number/],
      ['/remove', { numbers: '12345' }, 'remove-numbers', /Line 1/],
    ];
    for (const [path, fields, id, message] of cases) {
      const page = await post(`${url}${path}`, fields);
      assert.equal(page.statusCode, 400, `${path} ${JSON.stringify(fields)}: ${page.body.slice(0, 200)}`);
      fieldError(page.body, id, message);
      assert.match(read(page).document.title, /^Error: Edited — Outreach/);
    }
    const kept = await ok(t, org, 'GET', `/v1/pods/${podId}/lists/${list.id}`);
    assert.deepEqual([kept.name, kept.numbers], ['Edited', ['+12125550100']]);
    for (const [path, fields] of [
      ['', { name: 'Z' }],
      ['/add', { numbers: '+12125550101' }],
      ['/remove', { numbers: '+12125550100' }],
    ] as const) {
      assert.equal((await post(`${url}${path}`, fields, null)).statusCode, 403, `${path} without a token`);
      assert.equal((await post(`${url}${path}`, fields, other.signIn.csrf)).statusCode, 403, `${path}, another token`);
    }
    assert.equal((await post(`/console/pods/${podId}/delete`, {}, null)).statusCode, 403);
    assert.equal((await post(`/console/pods/${podId}/delete`, {}, other.signIn.csrf)).statusCode, 403);
    assert.deepEqual((await ok(t, org, 'GET', `/v1/pods/${podId}/lists/${list.id}`)).numbers, ['+12125550100']);
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 1);
    await ok(t, org, 'DELETE', `/v1/pods/${podId}/lists/${list.id}`, undefined, 204);
  });

  it('refuses every form without the CSRF token or with another session’s', async () => {
    const draft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${podId}/drafts`,
      { client_id: 'mine', to: '+12125550100', body: 'mine' },
      201,
    );
    const list = await ok(t, org, 'POST', `/v1/pods/${podId}/lists`, { name: 'Mine', numbers: ['+12125550100'] }, 201);
    await ok(t, org, 'POST', `/v1/pods/${podId}/ignore`, { participant: '+12125550100' }, 201);
    const job = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${podId}/messages/cycle`,
      { mode: 'broadcast', body: 'Hi', to: ['+12125550100'] },
      202,
    );
    const forms: [string, Record<string, string>][] = [
      [`/console/pods/${podId}/drafts/${draft.id}`, { to: '+12125550100', body: 'Changed' }],
      [`/console/pods/${podId}/drafts/${draft.id}/send`, {}],
      [`/console/pods/${podId}/drafts/${draft.id}/discard`, {}],
      [`/console/pods/${podId}/lists/${list.id}/delete`, {}],
      [`/console/pods/${podId}/ignore/remove`, { participant: '+12125550100' }],
      [`/console/pods/${podId}/jobs/${job.id}/cancel`, {}],
      ['/console/pods', { client_id: 'z', name: 'Z' }],
      [`/console/pods/${podId}`, { name: 'Z' }],
      [`/console/pods/${podId}/quiet-hours`, { start: '21:00', end: '08:00', time_zone: 'UTC' }],
      [`/console/pods/${podId}/drafts`, { client_id: 'z', to: '+12125550100', body: 'Z' }],
      [`/console/pods/${podId}/lists`, { name: 'Z' }],
      [`/console/pods/${podId}/ignore`, { participant: '+12125550100' }],
      [`/console/pods/${podId}/cycles`, { mode: 'ring' }],
    ];
    for (const [url, fields] of forms) {
      assert.equal((await post(url, fields, null)).statusCode, 403, `${url} without a token`);
      assert.equal((await post(url, fields, other.signIn.csrf)).statusCode, 403, `${url} with another token`);
    }
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}`)).name, 'Outreach');
    assert.equal((await ok(t, org, 'GET', '/v1/pods')).pods.length, 1);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/drafts/${draft.id}`)).status, 'draft');
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/lists`)).lists.length, 1);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/ignore`)).ignored.length, 1);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/jobs/${job.id}`)).status, 'queued');

    // With the token: the job is canceled, and its page says so without a live stream.
    const canceled = await post(`/console/pods/${podId}/jobs/${job.id}/cancel`, {});
    assert.equal(canceled.statusCode, 303);
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${podId}/jobs/${job.id}`)).status, 'canceled');
    const page = await getPage(t, `/console/pods/${podId}/jobs/${job.id}`, signIn);
    const ended = read(page);
    ended.getByText('Canceled');
    assert.equal(ended.document.querySelector('[data-live-url]'), null);
    assert.equal(ended.queryByRole('button', { name: 'Cancel the job' }), null);
    // Canceling again changes nothing and lands on the same page.
    assert.equal((await post(`/console/pods/${podId}/jobs/${job.id}/cancel`, {})).statusCode, 303);
    // Its live stream is another organization's 404.
    const theirs = await getPage(t, `/console/pods/${podId}/jobs/${job.id}/live`, other.signIn);
    assert.equal(theirs.statusCode, 404);
  });

  it('answers 404 for another organization’s pod, draft and job, and changes nothing of theirs', async () => {
    for (const url of [
      `/console/pods/${other.podId}`,
      `/console/pods/${other.podId}/drafts/${other.draftId}`,
      `/console/pods/${podId}/drafts/${other.draftId}`,
      `/console/pods/${other.podId}/jobs/job_01jdx3f7g8h9j0k1m2n3p4q5r6`,
      `/console/pods/${other.podId}/delete`,
      `/console/pods/${other.podId}/lists/${other.listId}`,
      `/console/pods/${podId}/lists/${other.listId}`,
    ]) {
      const page = await getPage(t, url, signIn);
      assert.equal(page.statusCode, 404, url);
    }
    const posts: [string, Record<string, string>][] = [
      [`/console/pods/${other.podId}`, { name: 'Mine now' }],
      [`/console/pods/${other.podId}/quiet-hours`, { start: '21:00', end: '08:00', time_zone: 'UTC' }],
      [`/console/pods/${other.podId}/drafts`, { client_id: 'q', to: '+12125550100', body: 'Hi' }],
      [`/console/pods/${other.podId}/drafts/${other.draftId}`, { to: '+12125550100', body: 'Changed' }],
      [`/console/pods/${other.podId}/drafts/${other.draftId}/send`, {}],
      [`/console/pods/${other.podId}/drafts/${other.draftId}/discard`, {}],
      [`/console/pods/${podId}/drafts/${other.draftId}/send`, {}],
      [`/console/pods/${other.podId}/lists`, { name: 'L' }],
      [`/console/pods/${other.podId}/ignore`, { participant: '+12125550100' }],
      [`/console/pods/${other.podId}/cycles`, { client_id: 'q', mode: 'broadcast', body: 'Hi', to: '+12125550100' }],
      [`/console/pods/${other.podId}/delete`, {}],
      [`/console/pods/${other.podId}/lists/${other.listId}`, { name: 'Mine now' }],
      [`/console/pods/${other.podId}/lists/${other.listId}/add`, { numbers: '+12125550101' }],
      [`/console/pods/${other.podId}/lists/${other.listId}/remove`, { numbers: '+12125550100' }],
      [`/console/pods/${podId}/lists/${other.listId}/remove`, { numbers: '+12125550100' }],
    ];
    for (const [url, fields] of posts) assert.equal((await post(url, fields)).statusCode, 404, url);
    // A forged list cursor is a bad link, not a crash.
    const forged = await getPage(t, '/console/pods?cursor=forged', signIn);
    assert.equal(forged.statusCode, 400);
    read(forged).getByText(/This list link is not valid/);
    const theirs = await ok(t, other.org, 'GET', `/v1/pods/${other.podId}`);
    assert.equal(theirs.name, 'Outreach');
    assert.equal(theirs.quiet_hours, null);
    const draft = await ok(t, other.org, 'GET', `/v1/pods/${other.podId}/drafts/${other.draftId}`);
    assert.equal(draft.status, 'draft');
    assert.equal(draft.body, 'theirs');
    const list = await ok(t, other.org, 'GET', `/v1/pods/${other.podId}/lists/${other.listId}`);
    assert.deepEqual([list.name, list.numbers], ['Theirs', ['+12125550100']]);
  });
});
