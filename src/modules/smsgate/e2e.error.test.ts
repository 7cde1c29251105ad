// Bad input the SMSGate app (its test double, test/support/smsgate-app.ts) can send to /mobile/v1,
// each with its answer and nothing changed: a spent, expired or unknown enrollment, a wrong code,
// another phone's token, a message this phone did not claim, an unknown state, and webhooks that
// are unsigned, wrongly signed, stale, changed after signing or signed with another phone's key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { activeOrganization, admin, startApp, type TestApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { AppRequestError, type SmsGateApp } from '../../../test/support/smsgate-app.ts';
import { appFor, enroll, readyPhone, twoSims } from '../../../test/support/smsgate-phone.ts';

const DAY = 24 * 60 * 60 * 1000;

/** The status of the AppRequestError a call throws (the app's Ktor client throws on non-2xx). */
async function refusedWith(call: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof AppRequestError)) throw error;
    return { status: error.status, body: error.body === '' ? {} : JSON.parse(error.body) };
  }
  assert.fail('the call succeeded');
}

describe('the SMSGate app protocol refuses bad input', () => {
  let t: TestApp;
  let phone: SmsGateApp;
  let other: SmsGateApp;
  let org: Awaited<ReturnType<typeof activeOrganization>>;
  let cellId: string;

  before(async () => {
    t = await startApp();
    phone = await readyPhone(t);
    other = await readyPhone(t);
    org = await activeOrganization(t);
    cellId = (await createCell(t, org.headers)).id;
  });
  after(() => t?.close());

  const inboundCount = async () => {
    const response = await t.app.inject({
      url: `/v1/cells/${cellId}/messages?direction=inbound`,
      headers: org.headers,
    });
    return (response.json().messages as unknown[]).length;
  };

  describe('registration', () => {
    it('refuses an unknown token, a spent one, an expired one and a wrong code with 401', async () => {
      const enrollment = await enroll(t);
      const app = await appFor(t, enrollment);
      const unknown = await refusedWith(app.register({ token: `cg_enr_${'x'.repeat(32)}` }));
      assert.equal(unknown.status, 401);
      assert.equal(unknown.body.code, 'unauthenticated');
      assert.equal((await refusedWith(app.register({ code: '000000' }))).status, 401);
      await app.register({ token: enrollment.token });
      const spent = await refusedWith((await appFor(t, enrollment)).register({ token: enrollment.token }));
      assert.equal(spent.status, 401, 'an enrollment is single use');
      const code = await refusedWith((await appFor(t, enrollment)).register({ code: enrollment.code }));
      assert.equal(code.status, 401, 'its code is spent with it');

      const later = await enroll(t);
      t.clock.advance(DAY + 1);
      const expired = await refusedWith((await appFor(t, later)).register({ token: later.token }));
      assert.equal(expired.status, 401);
    });

    it('refuses a code after its 10 minutes, while the token still works', async () => {
      const enrollment = await enroll(t);
      t.clock.advance(10 * 60 * 1000 + 1);
      assert.equal((await refusedWith((await appFor(t, enrollment)).register({ code: enrollment.code }))).status, 401);
      await (await appFor(t, enrollment)).register({ token: enrollment.token });
    });

    it('refuses every device call without a valid device token with 401', async () => {
      const stranger = await appFor(t, await enroll(t), twoSims());
      stranger.registration = { id: 'dev_nobody', token: 'cg_dev_nobody', login: 'x', password: null };
      const calls = [
        () => stranger.getDevice(),
        () => stranger.pullMessages('fifo'),
        () => stranger.fetchSettings(),
        () => stranger.fetchWebhooks(),
        () => stranger.reportStates([]),
      ];
      for (const call of calls) assert.equal((await refusedWith(call())).status, 401);
      const events = await stranger.openEvents({ reconnectDelayMs: () => 60_000 });
      assert.deepEqual(events.failures, ['status 401'], 'the SSE stream refuses it too');
      stranger.stop();
    });
  });

  describe('state reports', () => {
    it("leaves another phone's message untouched and answers as the app expects", async () => {
      const send = await t.app.inject({
        method: 'POST',
        url: `/v1/cells/${cellId}/messages/send`,
        headers: org.headers,
        payload: { to: '+14155550166', body: 'Not yours' },
      });
      assert.equal(send.statusCode, 202, send.body);
      const owner = [phone, other].find((p) => p.sims.some((s) => s.phoneNumber === send.json().from))!;
      const stranger = owner === phone ? other : phone;
      assert.deepEqual(await stranger.pullMessages('fifo'), [], "a phone never claims another phone's cell's message");
      const [claimed] = await owner.pullMessages('fifo');
      const patch = { ...owner.patchOf(claimed.id), state: 'Sent' };
      await stranger.reportStates([patch]);
      const view = await t.app.inject({ url: `/v1/cells/${cellId}/messages/${claimed.id}`, headers: org.headers });
      assert.equal(view.json().status, 'sending', 'claimed, then untouched by the other phone');
    });

    it('refuses a state the app does not have with 400', async () => {
      const refused = await refusedWith(
        phone.reportStates([{ id: 'msg_x', state: 'Exploded', recipients: [], states: {} }]),
      );
      assert.equal(refused.status, 400);
      assert.equal((await refusedWith(phone.reportStates([{ state: 'Sent' }]))).status, 400, 'no id');
      assert.equal((await refusedWith(phone.reportStates({} as unknown as unknown[]))).status, 400, 'not a list');
    });
  });

  describe('webhooks the app posts', () => {
    const sms = { simNumber: 1, sender: '+14155550155', text: 'forged?' };

    it('refuses unsigned, wrongly signed, stale, altered and foreign-key webhooks with 401, storing nothing', async () => {
      const before = await inboundCount();
      const cases = {
        unsigned: { omitHeaders: ['x-signature' as const] },
        'no timestamp': { omitHeaders: ['x-timestamp' as const] },
        'wrong signature': { signature: 'ab'.repeat(32) },
        stale: { timestamp: String(Math.floor(t.clock.now().getTime() / 1000) - 301) },
        'from the future': { timestamp: String(Math.floor(t.clock.now().getTime() / 1000) + 301) },
        "another phone's key": { signingKey: other.signingKey },
        'changed after signing': { body: (signed: string) => signed.replace('forged?', 'forged!') },
      };
      for (const [name, tamper] of Object.entries(cases)) {
        const [delivery] = await phone.receiveSms(sms, tamper);
        assert.equal(delivery.status, 401, `${name}: ${delivery.answer}`);
      }
      assert.equal(await inboundCount(), before);
    });

    it("refuses a webhook naming another phone's device with 401", async () => {
      const [delivery] = await phone.receiveSms(sms, { deviceId: other.registration!.id });
      assert.equal(delivery.status, 401, delivery.answer);
    });

    it('refuses an sms:received for a SIM the phone does not have with 4xx', async () => {
      const [delivery] = await phone.receiveSms({ ...sms, simNumber: 3 });
      assert.ok(delivery.status >= 400 && delivery.status < 500, `${delivery.status} ${delivery.answer}`);
    });

    it('refuses an oversized webhook body with 413', async () => {
      const [delivery] = await phone.receiveSms({ ...sms, text: 'x'.repeat(2_000_000) });
      assert.equal(delivery.status, 413, delivery.answer.slice(0, 200));
    });
  });

  it('changed nothing on the admin surface for the refused calls', async () => {
    const devices = await t.app.inject({ url: '/v1/admin/devices?limit=100', headers: admin });
    const agents = (devices.json().devices as { agent: string }[]).filter((d) => d.agent === 'smsgate');
    assert.equal(agents.length, 4, 'the two phones of the suite and the two registered by its tests');
  });
});
