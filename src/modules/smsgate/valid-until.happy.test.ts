// validUntil as the app uses it (docs/device-protocol.md): the app fails a text whose validUntil
// has passed by the phone's own clock ("TTL expired", modules/messages/MessagesService.kt
// sendMessage). Cellgate's validUntil is the earliest moment it could fail the text for good (the
// lease and the two attempts left: 6 minutes after a first claim), so a phone whose clock runs a
// few minutes fast still sends; one far beyond that fails the text as Cellgate itself would.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, useApp } from '../../../test/harness.ts';
import { queued } from '../../../test/support/messages.ts';
import { createCell } from '../../../test/support/cells.ts';
import { readyPhone } from '../../../test/support/smsgate-phone.ts';

describe('SMSGate validUntil and the phone clock', () => {
  const t = useApp();

  it('a phone clock 3 minutes fast sends (the lease end alone would have failed it); 7 minutes fast fails it "TTL expired"', async () => {
    let fastByMs = 0;
    const phone = await readyPhone(t, undefined, { now: () => new Date(t.clock.now().getTime() + fastByMs) });
    const org = await activeOrganization(t);
    const cell = await createCell(t, org.headers, 'SIM 1');
    const sendAndRead = async (body: string) => {
      const sent = await queued(t, { org, cell }, { to: '+14155550166', body });
      const [claimed] = await phone.pullMessages('fifo');
      assert.equal(claimed.id, sent.id);
      assert.equal(claimed.validUntil?.getTime(), t.clock.now().getTime() + 360_000);
      await phone.advance(claimed.id, 'Processed');
      await phone.advance(claimed.id, 'Sent');
      return (await t.app.inject({ url: `/v1/cells/${cell.id}/messages/${claimed.id}`, headers: org.headers })).json();
    };

    fastByMs = 3 * 60_000;
    const onTime = await sendAndRead('Three minutes fast');
    assert.equal(onTime.status, 'sent', JSON.stringify(onTime));

    fastByMs = 7 * 60_000;
    const late = await sendAndRead('Seven minutes fast');
    assert.equal(late.status, 'failed', JSON.stringify(late));
    assert.deepEqual(late.error, { code: 'device_error', message: 'TTL expired' });
  });
});
