// CELLGATE_TRUST_PROXY: behind a load balancer the per-address limits (sign-up per hour) count the
// client named in X-Forwarded-For; without the setting the header is the client's own word and
// changes nothing. Bad values refuse the start.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, uniqueEmail, type TestApp } from '../../test/harness.ts';
import { ConfigError, loadConfig } from '../config.ts';

const BALANCER = '10.0.0.2';

describe('client addresses behind a load balancer (CELLGATE_TRUST_PROXY)', () => {
  let t: TestApp | undefined;
  // Forgotten once closed: a later test that starts no app must not close this one again.
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** A sign-up that reaches the app from the balancer, for the client `forwardedFor`. */
  const signUpVia = (app: TestApp, forwardedFor: string, remoteAddress = BALANCER) =>
    app.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      remoteAddress,
      headers: { 'x-forwarded-for': forwardedFor },
      payload: { email: uniqueEmail() },
    });

  for (const setting of ['10.0.0.0/8', `${BALANCER}, 192.168.1.1`]) {
    it(`limits two forwarded clients separately (CELLGATE_TRUST_PROXY=${setting})`, async () => {
      t = await startApp({ env: { CELLGATE_SIGNUP_RATE_LIMIT: '1', CELLGATE_TRUST_PROXY: setting } });
      assert.equal((await signUpVia(t, '203.0.113.5')).statusCode, 201);
      assert.equal((await signUpVia(t, '203.0.113.6')).statusCode, 201);
      expectProblem(await signUpVia(t, '203.0.113.5'), 429, 'rate_limited');
      // A client cannot pick its address: a forged entry before the balancer's is not the one counted.
      expectProblem(await signUpVia(t, '198.51.100.9, 203.0.113.6'), 429, 'rate_limited');
    });
  }

  it('trusts only the listed proxies: a header from elsewhere changes nothing', async () => {
    t = await startApp({ env: { CELLGATE_SIGNUP_RATE_LIMIT: '1', CELLGATE_TRUST_PROXY: '10.0.0.0/8' } });
    assert.equal((await signUpVia(t, '203.0.113.5', '198.51.100.1')).statusCode, 201);
    expectProblem(await signUpVia(t, '203.0.113.6', '198.51.100.1'), 429, 'rate_limited');
  });

  it('without the setting, a forged X-Forwarded-For changes nothing: one address, one budget', async () => {
    t = await startApp({ env: { CELLGATE_SIGNUP_RATE_LIMIT: '1' } });
    assert.equal((await signUpVia(t, '203.0.113.5')).statusCode, 201);
    expectProblem(await signUpVia(t, '203.0.113.6'), 429, 'rate_limited');
  });

  it('reads off and address lists, and refuses anything else (a hop count too)', () => {
    const read = (value: string) => loadConfig({ CELLGATE_TRUST_PROXY: value }).trustProxy;
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(read('off'), false);
    assert.deepEqual(read('10.0.0.2, 10.1.0.0/16,fd00::/8'), ['10.0.0.2', '10.1.0.0/16', 'fd00::/8']);
    for (const bad of [
      '11',
      'yes',
      '10.0.0.300',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/8/1',
      'proxy.internal',
      '10.0.0.1,',
    ]) {
      assert.throws(
        () => read(bad),
        (error: unknown) => error instanceof ConfigError && /CELLGATE_TRUST_PROXY/.test(String(error)),
        bad,
      );
    }
  });
});
