// Only the phone's own signature opens the webhook receiver (contract §13): unsigned, wrongly
// signed, stale or other-phone webhooks are 401 and store nothing; an unknown SIM, an event
// Cellgate does not take, a bad body or a NUL byte is 400; an oversized body 413.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, type TestApp } from '../../../test/harness.ts';
import { mobileLine, webhook } from '../../../test/support/mobile.ts';

type Line = Awaited<ReturnType<typeof mobileLine>>;

const received = (sender = '+14155550123', simNumber: number | null = 1) => ({
  messageId: 'm1',
  message: 'hi',
  sender,
  simNumber,
  phoneNumber: sender,
  receivedAt: '2026-01-01T00:00:05.000Z',
});

const inboundCount = async (t: TestApp, line: Line) =>
  (
    await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages?direction=inbound`, headers: line.org.headers })
  ).json().messages.length as number;

describe('SMSGate webhook signatures', () => {
  const t = useApp();

  it('refuses unsigned, wrongly signed, stale, future and other-phone webhooks with 401, storing nothing', async () => {
    const line = await mobileLine(t);
    const other = await mobileLine(t);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const cases: Array<[string, Parameters<typeof webhook>[4]]> = [
      ['no signature', { headers: { 'x-signature': '' } }],
      ['no timestamp', { headers: { 'x-timestamp': '' } }],
      ['wrong key', { key: 'not-the-key' }],
      ["another phone's key", { key: other.phone.signingKey }],
      ['stale (6 minutes old)', { timestamp: now - 360 }],
      ['from the future', { timestamp: now + 360 }],
    ];
    for (const [name, options] of cases) {
      const response = await webhook(t, line.phone, 'sms:received', received(), options);
      assert.equal(response.statusCode, 401, `${name}: ${response.body}`);
      assert.equal(response.json().code, 'unauthenticated', name);
    }
    // A body changed after signing: the signature no longer matches.
    const body = JSON.stringify({ id: 'e1', event: 'sms:received', deviceId: line.phone.id, payload: received() });
    const tampered = await webhook(
      t,
      line.phone,
      'sms:received',
      {},
      {
        raw: body.replace('hi', 'ho'),
        headers: {
          'x-signature': (await import('./signature.ts')).signPayload(line.phone.signingKey, body, String(now)),
        },
      },
    );
    assert.equal(tampered.statusCode, 401);
    // An unknown device id answers as a bad signature does.
    const ghost = await webhook(t, { ...line.phone, id: 'dev_unknown' }, 'sms:received', received());
    assert.equal(ghost.statusCode, 401);
    assert.equal(await inboundCount(t, line), 0);
    // Within 5 minutes is accepted.
    const fresh = await webhook(t, line.phone, 'sms:received', received(), { timestamp: now - 290 });
    assert.equal(fresh.statusCode, 204, fresh.body);
  });

  it('an unknown SIM is 400, an event Cellgate does not take is 400, and nothing is stored', async () => {
    const line = await mobileLine(t);
    const unknownSim = await webhook(t, line.phone, 'sms:received', received('+14155550123', 3));
    assert.equal(unknownSim.statusCode, 400, unknownSim.body);
    assert.equal(unknownSim.json().errors[0].field, 'payload.simNumber');
    const other = await webhook(t, line.phone, 'sms:data-received', { data: 'AAE=' });
    assert.equal(other.statusCode, 400);
    assert.equal(await inboundCount(t, line), 0);
  });

  it('bad bodies: not JSON, not a webhook event, a NUL byte, a missing sender are 400; over 64 KiB is 413', async () => {
    const line = await mobileLine(t);
    assert.equal((await webhook(t, line.phone, '', {}, { raw: '{not json' })).statusCode, 400);
    assert.equal((await webhook(t, line.phone, '', {}, { raw: '{"id":"x"}' })).statusCode, 400);
    const nul = await webhook(t, line.phone, 'sms:received', { ...received(), message: 'a\u0000b' });
    assert.equal(nul.statusCode, 400, nul.body);
    const noSender = await webhook(t, line.phone, 'sms:received', { message: 'x', receivedAt: '2026-01-01T00:00:00Z' });
    assert.equal(noSender.statusCode, 400);
    const big = await webhook(t, line.phone, 'sms:received', { ...received(), message: 'x'.repeat(70_000) });
    assert.equal(big.statusCode, 413);
    assert.equal(await inboundCount(t, line), 0);
  });

  it('a state webhook for a message this phone does not hold is 409 and changes nothing', async () => {
    const line = await mobileLine(t);
    const response = await webhook(t, line.phone, 'sms:delivered', {
      messageId: 'msg_not_mine',
      recipient: '+14155550199',
      deliveredAt: '2026-01-01T00:00:02.000Z',
    });
    assert.equal(response.statusCode, 409, response.body);
  });
});
