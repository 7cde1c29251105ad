import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, useApp } from '../../../test/harness.ts';
import { inbound } from '../../../test/support/messages.ts';
import { call, clientId, createPod, lines, ok, podWithLines } from '../../../test/support/pods.ts';

describe('drafts: bad input and states', () => {
  const t = useApp();

  const cellDraft = async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(
      t,
      line.org,
      'POST',
      base,
      { client_id: clientId(), to: '+14155550150', body: 'Hello' },
      201,
    );
    return { line, org: line.org, base, draft };
  };

  it('answers a client_id repeated with another body with 409 client_id_conflict, across cells and pods too', async () => {
    const { line, org, base, draft } = await cellDraft();
    expectProblem(
      await call(t, org, 'POST', base, { client_id: draft.client_id, to: '+14155550150', body: 'Other' }),
      409,
      'client_id_conflict',
    );
    const pod = await createPod(t, org, [line.cell.id]);
    expectProblem(
      await call(t, org, 'POST', `/v1/pods/${pod.id}/drafts`, {
        client_id: draft.client_id,
        to: '+14155550150',
        body: 'Hello',
      }),
      409,
      'client_id_conflict',
    );
    assert.equal((await ok(t, org, 'GET', base)).drafts.length, 1);
  });

  for (const state of ['sent', 'discarded'] as const) {
    it(`refuses to edit or send a ${state} draft (409 conflict)`, async () => {
      const { org, base, draft } = await cellDraft();
      if (state === 'sent') await ok(t, org, 'POST', `${base}/${draft.id}/send`, undefined, 202);
      else await ok(t, org, 'DELETE', `${base}/${draft.id}`);
      const before = await ok(t, org, 'GET', `${base}/${draft.id}`);
      expectProblem(await call(t, org, 'PATCH', `${base}/${draft.id}`, { body: 'Too late' }), 409, 'conflict');
      expectProblem(await call(t, org, 'POST', `${base}/${draft.id}/send`), 409, 'conflict');
      assert.deepEqual(await ok(t, org, 'GET', `${base}/${draft.id}`), before);
      assert.equal(
        (await ok(t, org, 'GET', `/v1/cells/${draft.cell_id}/messages`)).messages.length,
        state === 'sent' ? 1 : 0,
      );
    });
  }

  it('refuses to discard a sent draft (409 conflict)', async () => {
    const { org, base, draft } = await cellDraft();
    await ok(t, org, 'POST', `${base}/${draft.id}/send`, undefined, 202);
    expectProblem(await call(t, org, 'DELETE', `${base}/${draft.id}`), 409, 'conflict');
  });

  it('queues one message when the same draft is sent twice at once with different keys', async () => {
    const { org, base, draft } = await cellDraft();
    const answers = await Promise.all(
      ['k1', 'k2'].map((key) =>
        call(t, org, 'POST', `${base}/${draft.id}/send`, undefined, { 'idempotency-key': key }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [202, 409]);
    assert.equal((await ok(t, org, 'GET', `/v1/cells/${draft.cell_id}/messages`)).messages.length, 1);
  });

  it('queues one message when the same pod draft is sent twice at once with different keys', async () => {
    const { org, pod } = await podWithLines(t, 2);
    const draft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550153', body: 'Once' },
      201,
    );
    const answers = await Promise.all(
      ['k1', 'k2'].map((key) =>
        call(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`, undefined, { 'idempotency-key': key }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [202, 409]);
    const sent = await ok(t, org, 'GET', `/v1/pods/${pod.id}/drafts/${draft.id}`);
    assert.equal(sent.message_id, answers.find((a) => a.statusCode === 202)?.json().id);
  });

  it('validates to, body and media_urls like a send', async () => {
    const [line] = await lines(t, 1);
    const body = expectProblem(
      await call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/drafts`, {
        client_id: clientId(),
        to: '555-0100',
        body: '',
        media_urls: ['http://example.com/a.jpg'],
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(body.errors.map((e: { field: string }) => e.field).sort(), ['body', 'media_urls.0', 'to']);
    expectProblem(
      await call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/drafts`, { to: '+14155550150', body: 'x' }),
      400,
      'invalid_request',
    );
  });

  it('refuses a pod draft send when the recipient texted STOP to a cell of the pod (409 recipient_opted_out)', async () => {
    const { org, lines: cells, pod } = await podWithLines(t, 2);
    assert.equal((await inbound(t, cells[0], { from: '+14155550151', body: 'STOP' })).statusCode, 201);
    const draft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550151', body: 'Hi' },
      201,
    );
    expectProblem(await call(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`), 409, 'recipient_opted_out');
    assert.equal((await ok(t, org, 'GET', `/v1/pods/${pod.id}/drafts/${draft.id}`)).status, 'draft');
  });

  it('refuses a pod draft send when the pod has no active cell (409 cell_not_active)', async () => {
    const [line] = await lines(t, 1);
    const pod = await createPod(t, line.org, []);
    const draft = await ok(
      t,
      line.org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550152', body: 'Hi' },
      201,
    );
    expectProblem(
      await call(t, line.org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`),
      409,
      'cell_not_active',
    );
  });
});
