// A suspended organization's pod sends (pod draft sends, cycle jobs) are refused as every other
// send is (contract §7): 402 payment_required for `reinstate`, with its PaymentDetails and the x402
// PAYMENT-REQUIRED header; not a 409 about the pod's cells, which billing suspended with it.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, expectProblem, useApp } from '../../../test/harness.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { send } from '../../../test/support/messages.ts';
import { call, clientId, ok, podWithLines } from '../../../test/support/pods.ts';

/** A 402 for reinstating, as a plain send gets it: PaymentDetails and the x402 header. */
function assertReinstate(response: Awaited<ReturnType<typeof call>>) {
  const body = expectProblem(response, 402, 'payment_required');
  assert.equal(body.payment.intent, 'reinstate');
  assert.deepEqual(body.payment.rails, ['card_processor', 'x402']);
  assert.match(body.payment.checkout_url, /^http:\/\/cellgate\.test\/v1\/billing\/checkout\/pay_/);
  const required = JSON.parse(Buffer.from(String(response.headers['payment-required']), 'base64').toString('utf8'));
  assert.equal(required.accepts[0].amount, String(Math.round(Number(body.payment.amount_usd) * 1_000_000)));
  return body;
}

describe('a suspended organization: pod sends', () => {
  let pod: Awaited<ReturnType<typeof podWithLines>>;
  let draftId: string;

  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO } });
  before(async () => {
    pod = await podWithLines(t, 2);
    draftId = (
      await ok(
        t,
        pod.org,
        'POST',
        `/v1/pods/${pod.pod.id}/drafts`,
        { client_id: clientId(), to: '+14155550170', body: 'Hello' },
        201,
      )
    ).id;
    const suspended = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/organizations/${pod.org.organizationId}/suspend`,
      headers: admin,
      payload: { reason: 'chargeback' },
    });
    assert.equal(suspended.statusCode, 200, suspended.body);
  });

  it('answers a plain send from one of its cells with 402 reinstate (the reference)', async () => {
    assertReinstate(await send(t, pod.lines[0], { to: '+14155550170', body: 'hi' }));
  });

  it('answers a pod draft send with the same 402 reinstate, and leaves the draft unsent', async () => {
    const plain = assertReinstate(await send(t, pod.lines[0], { to: '+14155550170', body: 'hi' }));
    const refused = assertReinstate(await call(t, pod.org, 'POST', `/v1/pods/${pod.pod.id}/drafts/${draftId}/send`));
    assert.equal(refused.payment.amount_usd, plain.payment.amount_usd);
    assert.equal((await ok(t, pod.org, 'GET', `/v1/pods/${pod.pod.id}/drafts/${draftId}`)).status, 'draft');
  });

  for (const payload of [{ mode: 'ring' }, { mode: 'broadcast', body: 'Doors open at 9.', to: ['+14155550171'] }]) {
    it(`answers a ${payload.mode} cycle job with 402 reinstate and starts no job`, async () => {
      assertReinstate(await call(t, pod.org, 'POST', `/v1/pods/${pod.pod.id}/messages/cycle`, payload));
      assert.deepEqual((await ok(t, pod.org, 'GET', `/v1/pods/${pod.pod.id}/jobs`)).jobs, []);
    });
  }

  it("still answers 404 for another organization's pod, before any billing", async () => {
    const other = await podWithLines(t, 1);
    expectProblem(
      await call(t, other.org, 'POST', `/v1/pods/${pod.pod.id}/messages/cycle`, { mode: 'ring' }),
      404,
      'not_found',
    );
    expectProblem(await call(t, other.org, 'POST', `/v1/pods/${pod.pod.id}/drafts/${draftId}/send`), 404, 'not_found');
  });
});
