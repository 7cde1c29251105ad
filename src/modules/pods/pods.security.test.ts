import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { call, clientId, createPod, lines, ok, type Org } from '../../../test/support/pods.ts';

const PARTICIPANT = '+14155550188';

describe('pods: another organization', () => {
  const t = useApp();

  /** Everything an organization has under its pod and a cell of it. */
  async function fixture() {
    const [a, b] = await lines(t, 2);
    const org = a.org;
    const pod = await createPod(t, org, [a.cell.id, b.cell.id]);
    const cell = a.cell.id;
    const podDraft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550181', body: 'pod draft' },
      201,
    );
    const cellDraft = await ok(
      t,
      org,
      'POST',
      `/v1/cells/${cell}/drafts`,
      { client_id: clientId(), to: '+14155550182', body: 'cell draft' },
      201,
    );
    const podList = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/lists`,
      { name: 'pod list', numbers: ['+14155550183'] },
      201,
    );
    const cellList = await ok(
      t,
      org,
      'POST',
      `/v1/cells/${cell}/lists`,
      { name: 'cell list', numbers: ['+14155550184'] },
      201,
    );
    await ok(t, org, 'POST', `/v1/pods/${pod.id}/ignore`, { participant: PARTICIPANT }, 201);
    await ok(t, org, 'POST', `/v1/cells/${cell}/ignore`, { participant: PARTICIPANT }, 201);
    const job = await ok(t, org, 'POST', `/v1/pods/${pod.id}/messages/cycle`, { mode: 'ring' }, 202);
    return { org, pod, cell, podDraft, cellDraft, podList, cellList, job };
  }

  /** What the owner sees of it. */
  async function snapshot(org: Org, f: Awaited<ReturnType<typeof fixture>>) {
    const urls = [
      `/v1/pods/${f.pod.id}`,
      `/v1/pods/${f.pod.id}/drafts`,
      `/v1/cells/${f.cell}/drafts`,
      `/v1/pods/${f.pod.id}/lists/${f.podList.id}`,
      `/v1/cells/${f.cell}/lists/${f.cellList.id}`,
      `/v1/pods/${f.pod.id}/ignore`,
      `/v1/cells/${f.cell}/ignore`,
      `/v1/pods/${f.pod.id}/jobs`,
      `/v1/cells/${f.cell}/messages`,
      `/v1/cells/${f.cell}`,
    ];
    return Promise.all(urls.map((url) => ok(t, org, 'GET', url)));
  }

  it("answers 404 on every pod, draft, list, ignore and job route with another organization's ids, and changes nothing", async () => {
    const f = await fixture();
    const [stranger] = await lines(t, 1);
    const ownPod = await createPod(t, stranger.org, [stranger.cell.id]);
    const own = stranger.cell.id;
    const before = await snapshot(f.org, f);
    const draftBody = { client_id: clientId(), to: '+14155550189', body: 'intrusion' };
    const requests: [string, string, unknown?][] = [
      ['GET', `/v1/pods/${f.pod.id}`],
      ['PATCH', `/v1/pods/${f.pod.id}`, { name: 'taken over' }],
      ['DELETE', `/v1/pods/${f.pod.id}`],
      ['POST', `/v1/pods/${f.pod.id}/messages/cycle`, { mode: 'ring' }],
      ['GET', `/v1/pods/${f.pod.id}/jobs`],
      ['GET', `/v1/pods/${f.pod.id}/jobs/${f.job.id}`],
      ['POST', `/v1/pods/${f.pod.id}/jobs/${f.job.id}/cancel`],
      ['GET', `/v1/pods/${ownPod.id}/jobs/${f.job.id}`],
      ['POST', `/v1/pods/${ownPod.id}/jobs/${f.job.id}/cancel`],
    ];
    for (const [scope, ownScope, draft, list] of [
      [`/v1/pods/${f.pod.id}`, `/v1/pods/${ownPod.id}`, f.podDraft, f.podList],
      [`/v1/cells/${f.cell}`, `/v1/cells/${own}`, f.cellDraft, f.cellList],
    ] as const) {
      requests.push(
        ['GET', `${scope}/drafts`],
        ['POST', `${scope}/drafts`, draftBody],
        ['GET', `${scope}/drafts/${draft.id}`],
        ['PATCH', `${scope}/drafts/${draft.id}`, { body: 'changed' }],
        ['DELETE', `${scope}/drafts/${draft.id}`],
        ['POST', `${scope}/drafts/${draft.id}/send`],
        ['GET', `${ownScope}/drafts/${draft.id}`],
        ['PATCH', `${ownScope}/drafts/${draft.id}`, { body: 'changed' }],
        ['DELETE', `${ownScope}/drafts/${draft.id}`],
        ['POST', `${ownScope}/drafts/${draft.id}/send`],
        ['GET', `${scope}/lists`],
        ['POST', `${scope}/lists`, { name: 'intrusion' }],
        ['GET', `${scope}/lists/${list.id}`],
        ['PATCH', `${scope}/lists/${list.id}`, { name: 'changed' }],
        ['DELETE', `${scope}/lists/${list.id}`],
        ['POST', `${scope}/lists/${list.id}/numbers`, { numbers: ['+14155550190'] }],
        ['POST', `${scope}/lists/${list.id}/numbers/remove`, { numbers: ['+14155550183', '+14155550184'] }],
        ['GET', `${ownScope}/lists/${list.id}`],
        ['PATCH', `${ownScope}/lists/${list.id}`, { name: 'changed' }],
        ['DELETE', `${ownScope}/lists/${list.id}`],
        ['POST', `${ownScope}/lists/${list.id}/numbers`, { numbers: ['+14155550190'] }],
        ['POST', `${ownScope}/lists/${list.id}/numbers/remove`, { numbers: ['+14155550183', '+14155550184'] }],
        ['GET', `${scope}/ignore`],
        ['POST', `${scope}/ignore`, { participant: '+14155550191' }],
        ['DELETE', `${scope}/ignore/${encodeURIComponent(PARTICIPANT)}`],
      );
    }
    for (const [method, url, payload] of requests) {
      const response = await call(t, stranger.org, method as 'GET', url, payload);
      expectProblem(response, 404, 'not_found');
    }
    assert.deepEqual(await snapshot(f.org, f), before);
    // The stranger's own scopes gained nothing either.
    assert.deepEqual((await ok(t, stranger.org, 'GET', `/v1/pods/${ownPod.id}/drafts`)).drafts, []);
    assert.deepEqual((await ok(t, stranger.org, 'GET', `/v1/pods/${ownPod.id}/lists`)).lists, []);
  });

  it('keeps pods out of listings of other organizations', async () => {
    const f = await fixture();
    const [stranger] = await lines(t, 1);
    assert.deepEqual((await ok(t, stranger.org, 'GET', '/v1/pods')).pods, []);
    assert.deepEqual(
      (await ok(t, f.org, 'GET', '/v1/pods')).pods.map((p: { id: string }) => p.id),
      [f.pod.id],
    );
  });

  it('requires a credential on every pod route', async () => {
    const f = await fixture();
    for (const url of [
      '/v1/pods',
      `/v1/pods/${f.pod.id}`,
      `/v1/pods/${f.pod.id}/jobs`,
      `/v1/pods/${f.pod.id}/drafts`,
      `/v1/cells/${f.cell}/lists`,
      `/v1/cells/${f.cell}/ignore`,
    ]) {
      expectProblem(await t.app.inject({ url }), 401, 'unauthenticated');
    }
  });
});
