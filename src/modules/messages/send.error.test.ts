import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { activeLine, inbound, type Line, queued, send, withLine } from '../../../test/support/messages.ts';

async function messageCount(t: TestApp, cellId: string) {
  const rows = await t.database.db.selectFrom('messages').select('id').where('cell_id', '=', cellId).execute();
  return rows.length;
}

describe('sending messages: bad requests', () => {
  let t: TestApp;
  let line: Line;
  withLine((app, started) => {
    t = app;
    line = started;
  });

  it('rejects invalid, national and unknown numbers with invalid_phone_number on to', async () => {
    for (const to of ['12345', '4155550123', '+1415555', '+15551234567', 'abc', '+14155550123 ext. 2', ' ']) {
      const body = expectProblem(await send(t, line, { to, body: 'hi' }), 400, 'invalid_request');
      assert.deepEqual(
        body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['to', 'invalid_phone_number']],
        to,
      );
    }
    assert.equal(await messageCount(t, line.cell.id), 0);
  });

  it("reports a bad number together with the body's other errors", async () => {
    const body = expectProblem(await send(t, line, { to: '12345', body: '' }), 400, 'invalid_request');
    assert.deepEqual(body.errors.map((e: { field: string; code: string }) => [e.field, e.code]).sort(), [
      ['body', 'too_short'],
      ['to', 'invalid_phone_number'],
    ]);
  });

  it('rejects a missing or non-string to', async () => {
    const missing = expectProblem(await send(t, line, { body: 'hi' }), 400, 'invalid_request');
    assert.equal(missing.errors[0].field, 'to');
    assert.equal(missing.errors[0].code, 'required');
    expectProblem(await send(t, line, { to: 14155550123, body: 'hi' }), 400, 'invalid_request');
  });

  it('rejects an empty body and one of 1601 characters', async () => {
    const empty = expectProblem(await send(t, line, { to: '+14155550123', body: '' }), 400, 'invalid_request');
    assert.deepEqual([empty.errors[0].field, empty.errors[0].code], ['body', 'too_short']);
    const long = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'a'.repeat(1601) }),
      400,
      'invalid_request',
    );
    assert.deepEqual([long.errors[0].field, long.errors[0].code], ['body', 'too_long']);
    expectProblem(await send(t, line, { to: '+14155550123' }), 400, 'invalid_request');
    assert.equal(await messageCount(t, line.cell.id), 0);
  });

  it('rejects http media, 11 media URLs, a 2049-character URL and a non-URL', async () => {
    const http = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', media_urls: ['http://example.com/a.jpg'] }),
      400,
      'invalid_request',
    );
    assert.equal(http.errors[0].field, 'media_urls.0');
    const eleven = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', media_urls: Array(11).fill('https://example.com/a.jpg') }),
      400,
      'invalid_request',
    );
    assert.deepEqual([eleven.errors[0].field, eleven.errors[0].code], ['media_urls', 'too_many']);
    const longUrl = `https://example.com/${'m'.repeat(2049 - 'https://example.com/'.length)}`;
    const tooLong = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', media_urls: [longUrl] }),
      400,
      'invalid_request',
    );
    assert.deepEqual([tooLong.errors[0].field, tooLong.errors[0].code], ['media_urls.0', 'too_long']);
    expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', media_urls: ['https://'] }),
      400,
      'invalid_request',
    );
    expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', media_urls: 'https://example.com/a.jpg' }),
      400,
      'invalid_request',
    );
    assert.equal(await messageCount(t, line.cell.id), 0);
  });

  it('rejects unknown fields, including client_id', async () => {
    const body = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'x', client_id: 'c1' }),
      400,
      'invalid_request',
    );
    assert.deepEqual([body.errors[0].field, body.errors[0].code], ['client_id', 'unknown_field']);
  });

  it("answers 404 for an unknown cell and for another organization's cell", async () => {
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/v1/cells/cell_unknown/messages/send',
      headers: line.org.headers,
      payload: { to: '+14155550123', body: 'x' },
    });
    expectProblem(unknown, 404, 'not_found');
    const other = await activeOrganization(t);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/send`,
      headers: other.headers,
      payload: { to: '+14155550123', body: 'x' },
    });
    expectProblem(foreign, 404, 'not_found');
    expectProblem(
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages`, headers: other.headers }),
      404,
      'not_found',
    );
    assert.equal(await messageCount(t, line.cell.id), 0);
  });

  it('answers 404 for a released cell', async () => {
    const fresh = await activeLine(t);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${fresh.cell.id}`, headers: fresh.org.headers }))
        .statusCode,
      200,
    );
    expectProblem(await send(t, fresh, { to: '+14155550123', body: 'x' }), 404, 'not_found');
  });

  it('answers 422 when an Idempotency-Key is reused for a different request', async () => {
    const first = await send(t, line, { to: '+14155550160', body: 'one' }, { 'idempotency-key': 'k-reuse' });
    assert.equal(first.statusCode, 202);
    expectProblem(
      await send(t, line, { to: '+14155550160', body: 'two' }, { 'idempotency-key': 'k-reuse' }),
      422,
      'idempotency_key_reused',
    );
    const otherCell = await activeLine(t, {}, line.org);
    // Scope is organization + route + key: the same key on another cell's route is another request.
    expectProblem(
      await send(t, otherCell, { to: '+14155550160', body: 'one' }, { 'idempotency-key': 'k-reuse' }),
      422,
      'idempotency_key_reused',
    );
  });

  it('does not store a request rejected for its number: the key stays free for the corrected request', async () => {
    expectProblem(
      await send(t, line, { to: '+1555', body: 'fix me' }, { 'idempotency-key': 'k-fix' }),
      400,
      'invalid_request',
    );
    expectProblem(
      await send(t, line, { to: '+14155550161', body: '' }, { 'idempotency-key': 'k-fix' }),
      400,
      'invalid_request',
    );
    const fixed = await send(t, line, { to: '+14155550161', body: 'fix me' }, { 'idempotency-key': 'k-fix' });
    assert.equal(fixed.statusCode, 202);
    assert.equal(fixed.headers['idempotent-replayed'], undefined);
  });

  it('rejects a malformed Idempotency-Key', async () => {
    expectProblem(
      await send(t, line, { to: '+14155550162', body: 'x' }, { 'idempotency-key': 'k'.repeat(256) }),
      400,
      'invalid_request',
    );
  });

  it('needs a credential', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/send`,
      payload: { to: '+14155550123', body: 'x' },
    });
    expectProblem(response, 401, 'unauthenticated');
    const deviceKey = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/send`,
      headers: bearer(line.device.key),
      payload: { to: '+14155550123', body: 'x' },
    });
    expectProblem(deviceKey, 401, 'unauthenticated');
  });

  it('answers 404 for messages that are not in the cell', async () => {
    const message = await queued(t, line, { to: '+14155550163', body: 'mine' });
    const otherLine = await activeLine(t);
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/cancel'],
      ['POST', '/reply'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url: `/v1/cells/${otherLine.cell.id}/messages/${message.id}${suffix}`,
        headers: otherLine.org.headers,
        ...(suffix === '/reply' ? { payload: { body: 'x' } } : {}),
      });
      expectProblem(response, 404, 'not_found');
    }
    expectProblem(
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/msg_unknown`, headers: line.org.headers }),
      404,
      'not_found',
    );
  });
});

describe('sending from a cell that is not active', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('answers 409 cell_not_active while the cell is provisioning', async () => {
    const org = await activeOrganization(t);
    const waiting = await createCell(t, org.headers); // no device in the inventory
    assert.equal(waiting.status, 'provisioning');
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${waiting.id}/messages/send`,
      headers: org.headers,
      payload: { to: '+14155550123', body: 'x' },
    });
    expectProblem(response, 409, 'cell_not_active');
    assert.equal(await messageCount(t, waiting.id), 0);
  });
});

describe('opt-outs', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('refuses sends to a number that texted any STOP word, until it texts START, UNSTOP or YES', async () => {
    const line = await activeLine(t);
    const stops = ['STOP', ' stop ', 'Unsubscribe', 'END', 'quit', 'STOPALL', 'revoke', 'OPTOUT', 'Cancel'];
    const starts = ['START', 'unstop', ' Yes\n'];
    for (const [i, word] of stops.entries()) {
      const from = `+1415555017${i}`;
      assert.equal((await inbound(t, line, { from, body: word })).statusCode, 201);
      expectProblem(await send(t, line, { to: from, body: 'hello?' }), 409, 'recipient_opted_out');
      assert.equal((await inbound(t, line, { from, body: starts[i % starts.length] })).statusCode, 201);
      assert.equal((await send(t, line, { to: from, body: 'welcome back' })).statusCode, 202, word);
    }
  });

  it('only whole-message keywords count', async () => {
    const line = await activeLine(t);
    for (const body of ['stop it', 'please STOP', 'STOP!', 'yes stop']) {
      await inbound(t, line, { from: '+14155550180', body });
      assert.equal((await send(t, line, { to: '+14155550180', body: 'still here' })).statusCode, 202, body);
    }
  });

  it('sends accepted together: the one to an opted-out number is refused alone, the others are queued', async () => {
    const line = await activeLine(t);
    await inbound(t, line, { from: '+14155550183', body: 'STOP' });
    const recipients = ['+14155550184', '+14155550183', '+14155550185', '+14155550183'];
    const answers = await Promise.all(
      recipients.map((to, i) => send(t, line, { to, body: `together ${i}` }, { 'idempotency-key': `together-${i}` })),
    );
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [202, 409, 202, 409],
    );
    expectProblem(answers[1], 409, 'recipient_opted_out');
    const listed = (
      await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages?direction=outbound`, headers: line.org.headers })
    ).json().messages;
    assert.deepEqual(listed.map((m: { to: string }) => m.to).sort(), ['+14155550184', '+14155550185']);
    // The refusal is an outcome like any other: the same request replays it.
    const again = await send(t, line, { to: recipients[1], body: 'together 1' }, { 'idempotency-key': 'together-1' });
    expectProblem(again, 409, 'recipient_opted_out');
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  it('opt-outs are per cell', async () => {
    const a = await activeLine(t);
    const b = await activeLine(t, {}, a.org);
    await inbound(t, a, { from: '+14155550181', body: 'STOP' });
    expectProblem(await send(t, a, { to: '+14155550181', body: 'x' }), 409, 'recipient_opted_out');
    assert.equal((await send(t, b, { to: '+14155550181', body: 'x' })).statusCode, 202);
  });
});
