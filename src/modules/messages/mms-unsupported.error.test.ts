// A send with media from a cell whose phone states mms_send: false is 409 mms_unsupported up
// front (contract §4): nothing queued, nothing charged, and a retry with the same
// Idempotency-Key replays the refusal like any other 409.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, inbound, send, type Line } from '../../../test/support/messages.ts';
import { createPod, ok } from '../../../test/support/pods.ts';

const MEDIA = ['https://example.com/menu.jpg'];

async function statesNoMms(t: TestApp, line: Line) {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/v1/device/heartbeat',
    headers: line.device.headers,
    payload: { capabilities: { delivery_reports: false, mms_send: false, mms_receive: false } },
  });
  assert.equal(answer.statusCode, 200);
}

async function outbound(t: TestApp, line: Line) {
  return (
    await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages?direction=outbound`, headers: line.org.headers })
  ).json().messages as { body: string; media_urls: string[] }[];
}

async function balance(t: TestApp, line: Line): Promise<number> {
  return (await t.app.inject({ url: '/v1/billing/status', headers: line.org.headers })).json().prepaid_balance_usd;
}

describe('media from a phone that cannot send MMS', () => {
  let t: TestApp;
  let sms: Line;
  before(async () => {
    t = await startApp();
    sms = await activeLine(t);
    await statesNoMms(t, sms);
  });
  after(() => t.close());

  it('refuses a send with media_urls with 409 mms_unsupported, queuing and charging nothing', async () => {
    const before = await balance(t, sms);
    const body = expectProblem(
      await send(t, sms, { to: '+14155550123', body: 'Our menu', media_urls: MEDIA }),
      409,
      'mms_unsupported',
    );
    assert.match(body.detail, /cannot send MMS/);
    assert.match(body.type, /\/docs\/errors\/mms_unsupported$/);
    assert.deepEqual(await outbound(t, sms), []);
    assert.equal(await balance(t, sms), before);
    // The same text without media goes out (and is charged): the refusal is about the media alone.
    assert.equal((await send(t, sms, { to: '+14155550123', body: 'Our menu: example.com/menu' })).statusCode, 202);
    assert.ok((await balance(t, sms)) < before, 'a send is charged, so the unchanged balance above means nothing was');
    assert.deepEqual(
      (await outbound(t, sms)).map((m) => m.body),
      ['Our menu: example.com/menu'],
    );
  });

  it('takes media from a cell whose phone can send MMS', async () => {
    const mms = await activeLine(t, {}, sms.org);
    const sent = await send(t, mms, { to: '+14155550123', body: 'Our menu', media_urls: MEDIA });
    assert.equal(sent.statusCode, 202);
    assert.deepEqual(sent.json().media_urls, MEDIA);
  });

  it('keeps the refusal under its Idempotency-Key, as every 409: the retry replays it and still queues nothing', async () => {
    const payload = { to: '+14155550124', body: 'Photo', media_urls: MEDIA };
    expectProblem(await send(t, sms, payload, { 'idempotency-key': 'mms-1' }), 409, 'mms_unsupported');
    const again = await send(t, sms, payload, { 'idempotency-key': 'mms-1' });
    expectProblem(again, 409, 'mms_unsupported');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal((await outbound(t, sms)).filter((m) => m.media_urls.length > 0).length, 0);
  });

  it('refuses a reply with media_urls the same way', async () => {
    const received = (await inbound(t, sms, { from: '+14155550125', body: 'Send me the menu?' })).json();
    const before = await balance(t, sms);
    const reply = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${sms.cell.id}/messages/${received.id}/reply`,
      headers: sms.org.headers,
      payload: { body: 'Here it is', media_urls: MEDIA },
    });
    expectProblem(reply, 409, 'mms_unsupported');
    assert.equal((await outbound(t, sms)).filter((m) => m.body === 'Here it is').length, 0);
    assert.equal(await balance(t, sms), before);
  });

  it('refuses to send a cell draft with media, which stays a draft', async () => {
    const base = `/v1/cells/${sms.cell.id}/drafts`;
    const draft = await ok(
      t,
      sms.org,
      'POST',
      base,
      { client_id: 'mms-draft-1', to: '+14155550126', body: 'Draft photo', media_urls: MEDIA },
      201,
    );
    const before = await balance(t, sms);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `${base}/${draft.id}/send`, headers: sms.org.headers }),
      409,
      'mms_unsupported',
    );
    assert.equal((await ok(t, sms.org, 'GET', `${base}/${draft.id}`)).status, 'draft');
    assert.equal(await balance(t, sms), before);
    assert.equal((await outbound(t, sms)).filter((m) => m.body === 'Draft photo').length, 0);
  });

  it('refuses to send a pod draft with media when the cell picked for it cannot send MMS', async () => {
    const pod = await createPod(t, sms.org, [sms.cell.id], 'SMS-only pod');
    const base = `/v1/pods/${pod.id}/drafts`;
    const draft = await ok(
      t,
      sms.org,
      'POST',
      base,
      { client_id: 'mms-pod-draft-1', to: '+14155550127', body: 'Pod photo', media_urls: MEDIA },
      201,
    );
    const before = await balance(t, sms);
    expectProblem(
      await t.app.inject({ method: 'POST', url: `${base}/${draft.id}/send`, headers: sms.org.headers }),
      409,
      'mms_unsupported',
    );
    assert.equal((await ok(t, sms.org, 'GET', `${base}/${draft.id}`)).status, 'draft');
    assert.equal(await balance(t, sms), before);
    // Without media the same pod sends.
    const plain = await ok(
      t,
      sms.org,
      'POST',
      base,
      { client_id: 'mms-pod-draft-2', to: '+14155550127', body: 'Pod text' },
      201,
    );
    assert.equal(
      (await t.app.inject({ method: 'POST', url: `${base}/${plain.id}/send`, headers: sms.org.headers })).statusCode,
      202,
    );
  });
});
