import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { call, clientId, lines, ok, podWithLines } from '../../../test/support/pods.ts';

describe('drafts', () => {
  const t = useApp();

  it('creates a cell draft (201) in the contract shape; the same body again is 200 with the same draft', async () => {
    const [line] = await lines(t, 1);
    const body = { client_id: clientId(), to: '+1 415 555 0142', body: 'See you at 8.' };
    const response = await call(t, line.org, 'POST', `/v1/cells/${line.cell.id}/drafts`, body);
    assert.equal(response.statusCode, 201);
    const draft = response.json();
    assert.deepEqual(Object.keys(draft).sort(), [
      'body',
      'cell_id',
      'client_id',
      'created_at',
      'id',
      'media_urls',
      'message_id',
      'pod_id',
      'status',
      'to',
      'updated_at',
    ]);
    assert.match(draft.id, /^drf_[0-9a-z]{26}$/);
    assert.equal(draft.to, '+14155550142');
    assert.equal(draft.cell_id, line.cell.id);
    assert.equal(draft.pod_id, null);
    assert.equal(draft.status, 'draft');
    assert.deepEqual(draft.media_urls, []);
    const again = await ok(
      t,
      line.org,
      'POST',
      `/v1/cells/${line.cell.id}/drafts`,
      { ...body, to: '+14155550142' },
      200,
    );
    assert.deepEqual(again, draft);
    assert.deepEqual(await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/drafts/${draft.id}`), draft);
  });

  it('edits a draft, then sends it: 202 with the queued message, and the draft is sent with its message_id', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(
      t,
      line.org,
      'POST',
      base,
      { client_id: clientId(), to: '+14155550142', body: 'First words' },
      201,
    );
    t.clock.advance(1000);
    const edited = await ok(t, line.org, 'PATCH', `${base}/${draft.id}`, {
      body: 'Better words',
      media_urls: ['https://example.com/a.jpg'],
    });
    assert.equal(edited.body, 'Better words');
    assert.equal(edited.updated_at, t.clock.now().toISOString());
    const message = await ok(t, line.org, 'POST', `${base}/${draft.id}/send`, undefined, 202);
    assert.match(message.id, /^msg_/);
    assert.equal(message.status, 'queued');
    assert.equal(message.cell_id, line.cell.id);
    assert.equal(message.body, 'Better words');
    assert.deepEqual(message.media_urls, ['https://example.com/a.jpg']);
    const sent = await ok(t, line.org, 'GET', `${base}/${draft.id}`);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.message_id, message.id);
    assert.equal((await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/messages/${message.id}`)).id, message.id);
  });

  it('replays a draft send with the same Idempotency-Key: same 202 body, one message', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(t, line.org, 'POST', base, { client_id: clientId(), to: '+14155550143', body: 'Once' }, 201);
    const first = await call(t, line.org, 'POST', `${base}/${draft.id}/send`, undefined, {
      'idempotency-key': 'draft-send-1',
    });
    const again = await call(t, line.org, 'POST', `${base}/${draft.id}/send`, undefined, {
      'idempotency-key': 'draft-send-1',
    });
    assert.equal(first.statusCode, 202);
    assert.equal(again.statusCode, 202);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal((await ok(t, line.org, 'GET', `/v1/cells/${line.cell.id}/messages`)).messages.length, 1);
  });

  it('discards a draft (200, discarded); discarding again answers the same', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const draft = await ok(
      t,
      line.org,
      'POST',
      base,
      { client_id: clientId(), to: '+14155550144', body: 'Never mind' },
      201,
    );
    const discarded = await ok(t, line.org, 'DELETE', `${base}/${draft.id}`);
    assert.equal(discarded.status, 'discarded');
    assert.deepEqual(await ok(t, line.org, 'DELETE', `${base}/${draft.id}`), discarded);
  });

  it('lists drafts newest first, filtered by status', async () => {
    const [line] = await lines(t, 1);
    const base = `/v1/cells/${line.cell.id}/drafts`;
    const a = await ok(t, line.org, 'POST', base, { client_id: clientId(), to: '+14155550145', body: 'a' }, 201);
    const b = await ok(t, line.org, 'POST', base, { client_id: clientId(), to: '+14155550145', body: 'b' }, 201);
    await ok(t, line.org, 'DELETE', `${base}/${a.id}`);
    assert.deepEqual(
      (await ok(t, line.org, 'GET', base)).drafts.map((d: { id: string }) => d.id),
      [b.id, a.id],
    );
    assert.deepEqual(
      (await ok(t, line.org, 'GET', `${base}?status=draft`)).drafts.map((d: { id: string }) => d.id),
      [b.id],
    );
  });

  it('sends a pod draft from the cell the recipient already talks to (sticky)', async () => {
    const { org, lines: cells, pod } = await podWithLines(t, 3);
    await queued(t, cells[2], { to: '+14155550160', body: 'Earlier conversation' });
    const draft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550160', body: 'Follow-up' },
      201,
    );
    assert.equal(draft.pod_id, pod.id);
    assert.equal(draft.cell_id, null);
    const message = await ok(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`, undefined, 202);
    assert.equal(message.cell_id, cells[2].cell.id);
  });

  it('sends a pod draft from the cell with the latest conversation when the recipient talks to several', async () => {
    const { org, lines: cells, pod } = await podWithLines(t, 3);
    await queued(t, cells[0], { to: '+14155550161', body: 'First cell' });
    t.clock.advance(1000);
    await queued(t, cells[2], { to: '+14155550161', body: 'Latest cell' });
    const draft = await ok(
      t,
      org,
      'POST',
      `/v1/pods/${pod.id}/drafts`,
      { client_id: clientId(), to: '+14155550161', body: 'Follow-up' },
      201,
    );
    const message = await ok(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`, undefined, 202);
    assert.equal(message.cell_id, cells[2].cell.id);
  });

  it('rotates pod drafts to new recipients over the active cells', async () => {
    const { org, lines: cells, pod } = await podWithLines(t, 3);
    const used: string[] = [];
    for (let i = 0; i < 6; i++) {
      const draft = await ok(
        t,
        org,
        'POST',
        `/v1/pods/${pod.id}/drafts`,
        { client_id: clientId(), to: `+1415555017${i}`, body: 'Hello' },
        201,
      );
      used.push((await ok(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`, undefined, 202)).cell_id);
    }
    const ids = cells.map((line) => line.cell.id);
    for (const id of ids)
      assert.equal(used.filter((u) => u === id).length, 2, `each cell sends two of six: ${used.join(',')}`);
    assert.deepEqual(used.slice(3), used.slice(0, 3), 'in a fixed rotation');
  });

  it('sends pod drafts sent at once by the same rules: even rotation, sticky cells, each draft marked sent with its own message', async () => {
    const { org, lines: cells, pod } = await podWithLines(t, 3);
    await queued(t, cells[1], { to: '+14155550179', body: 'Earlier conversation' });
    // Six new recipients, and two drafts to the sticky one (same cell, same recipient).
    const recipients = [
      '+14155550180',
      '+14155550181',
      '+14155550182',
      '+14155550183',
      '+14155550184',
      '+14155550185',
      '+14155550179',
      '+14155550179',
    ];
    const drafts = [];
    for (const to of recipients)
      drafts.push(
        await ok(t, org, 'POST', `/v1/pods/${pod.id}/drafts`, { client_id: clientId(), to, body: 'Hello' }, 201),
      );
    const messages = await Promise.all(
      drafts.map((draft) => ok(t, org, 'POST', `/v1/pods/${pod.id}/drafts/${draft.id}/send`, undefined, 202)),
    );
    const ids = cells.map((line) => line.cell.id);
    for (const id of ids)
      assert.equal(
        messages.slice(0, 6).filter((m) => m.cell_id === id).length,
        2,
        'each cell sends two of the six new recipients',
      );
    assert.deepEqual(
      messages.slice(6).map((m) => m.cell_id),
      [ids[1], ids[1]],
      'the sticky recipient keeps its cell',
    );
    assert.equal(new Set(messages.map((m) => m.id)).size, drafts.length);
    for (const [i, draft] of drafts.entries()) {
      const sent = await ok(t, org, 'GET', `/v1/pods/${pod.id}/drafts/${draft.id}`);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.message_id, messages[i].id);
      assert.equal(messages[i].to, draft.to);
    }
  });
});
