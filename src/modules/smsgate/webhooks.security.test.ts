// Only the phone's own signature opens the webhook receiver (contract §13): unsigned, wrongly
// signed, stale or other-phone webhooks are 401 and store nothing; an unknown SIM, an event
// Cellgate does not take, a bad body or a NUL byte is 400; an oversized body 413; a text on a SIM
// line that carries no cell (its number redacted at sign-in and not set yet) is 409 and stores nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, type TestApp } from '../../../test/harness.ts';
import { mobileLine, nextNumber, twoSims, webhook } from '../../../test/support/mobile.ts';

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

  it('a text on a line without a cell is 409 line_without_cell: nothing stored, no number learnt from its recipient', async () => {
    const line = await mobileLine(t, twoSims(nextNumber(), '********0002'));
    const simTwo = { ...received('+14155550166', 2), recipient: '+14155550002' };
    for (const [event, payload] of [
      ['sms:received', simTwo],
      ['mms:received', { ...simTwo, transactionId: 'T1', size: 100 }],
    ] as const) {
      const refused = await webhook(t, line.phone, event, payload);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().code, 'conflict');
      assert.deepEqual(
        refused.json().errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [['payload.simNumber', 'line_without_cell']],
      );
      assert.match(refused.json().detail, /SIM 2 of this phone has no known number .* PATCH \/v1\/admin\/devices\//);
    }
    assert.equal(await inboundCount(t, line), 0, 'nothing landed on the cell of SIM 1 either');
    const device = (await t.app.inject({ url: `/v1/admin/devices/${line.phone.id}`, headers: admin })).json();
    assert.deepEqual(
      device.sims.map((s: { phone_number: string | null; cell_id: string | null }) => [s.phone_number, s.cell_id]),
      [
        [device.phone_number, line.cell.id],
        [null, null],
      ],
    );
  });

  it('bad bodies: signed by the phone they name but not a webhook event, a NUL byte, a missing sender are 400; over 64 KiB is 413; naming no phone 401', async () => {
    const line = await mobileLine(t);
    // Not JSON, or no deviceId: no phone's key can check the signature.
    assert.equal((await webhook(t, line.phone, '', {}, { raw: '{not json' })).statusCode, 401);
    assert.equal((await webhook(t, line.phone, '', {}, { raw: '{"id":"x"}' })).statusCode, 401);
    const shapeless = await webhook(
      t,
      line.phone,
      '',
      {},
      { raw: JSON.stringify({ id: 'x', deviceId: line.phone.id }) },
    );
    assert.equal(shapeless.statusCode, 400, shapeless.body);
    assert.equal(shapeless.json().code, 'invalid_request');
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
