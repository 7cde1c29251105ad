import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, type TestApp } from '../../../test/harness.ts';
import { claim, send, withLine, type Line } from '../../../test/support/messages.ts';

describe('scheduled sends: bad requests', () => {
  let t: TestApp;
  let line: Line;
  withLine((app, started) => {
    t = app;
    line = started;
  });

  const fieldError = async (payload: Record<string, unknown>) => {
    const body = expectProblem(
      await send(t, line, { to: '+14155550123', body: 'hi', ...payload }),
      400,
      'invalid_request',
    );
    return `${body.errors[0].field}:${body.errors[0].code}`;
  };
  const after = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();

  it('refuses a send_at in the past or now', async () => {
    assert.equal(await fieldError({ send_at: after(-1000) }), 'send_at:in_the_past');
    assert.equal(await fieldError({ send_at: after(0) }), 'send_at:in_the_past');
  });

  it('refuses a send_at more than 30 days ahead, and takes one exactly 30 days ahead', async () => {
    const days30 = 30 * 24 * 60 * 60 * 1000;
    assert.equal(await fieldError({ send_at: after(days30 + 1000) }), 'send_at:too_far_ahead');
    const ok = await send(t, line, { to: '+14155550123', body: 'hi', send_at: after(days30) });
    assert.equal(ok.statusCode, 202, ok.body);
  });

  it('refuses a send_at that is not ISO 8601 with an offset', async () => {
    for (const send_at of [
      'tomorrow',
      '2026-11-22T09:00:00',
      '2026-11-22',
      '2026-02-31T09:00:00Z',
      '2026-11-22T25:00:00Z',
      '2026-11-22 09:00:00Z',
      '1764000000',
      '2026-11-22T09:00:00+25:00',
    ])
      assert.equal(await fieldError({ send_at }), 'send_at:invalid_format', send_at);
  });

  it('refuses send_at and send_now of the wrong type', async () => {
    assert.equal((await fieldError({ send_at: 1764000000 })).split(':')[0], 'send_at');
    assert.equal((await fieldError({ send_now: 'yes' })).split(':')[0], 'send_now');
  });

  it('queues nothing for a refused send', async () => {
    const count = async () =>
      (await t.database.db.selectFrom('messages').select('id').where('cell_id', '=', line.cell.id).execute()).length;
    const before = await count();
    await fieldError({ send_at: after(-1) });
    await fieldError({ send_at: 'tomorrow' });
    assert.equal(await count(), before);
  });

  it('answers 409 when canceling a scheduled message that went out already', async () => {
    const message = (await send(t, line, { to: '+14155550123', body: 'soon', send_at: after(1000) })).json();
    t.clock.advance(1000);
    await t.services.scheduledSends.tick();
    await claim(t, line);
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/v1/cells/${line.cell.id}/messages/${message.id}/cancel`,
      headers: line.org.headers,
    });
    expectProblem(cancel, 409, 'conflict');
  });
});
