// Two real server processes on one PostgreSQL database: a token that process B has just accepted
// (and cached) is refused by B as soon as process A revokes it, long before the cache would lapse.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganizationOn, skipUnlessPostgres } from '../../../test/processes.ts';
import { useServerProcesses } from '../../../test/support/server-processes.ts';
import { oauthTokens } from '../../../test/support/oauth-flow.ts';
import { TOKEN_CACHE_MS } from './service.ts';

describe('OAuth revocation across two processes on one PostgreSQL database', { skip: skipUnlessPostgres }, () => {
  // One deployment: both processes answer for the same base URL (tokens are bound to it).
  const servers = useServerProcesses('cellgate_oauth_mp', { env: { CELLGATE_BASE_URL: 'http://cellgate.test' } });

  it('refuses a revoked access token in the other process at once', async () => {
    const { a, b } = servers;
    const org = await activeOrganizationOn(a, 'oauth-mp');
    const tokens = await oauthTokens(a.url, org.api_key, 'cells:read');
    const whoami = () => fetch(`${b.url}/v1/auth/whoami`, { headers: { authorization: `Bearer ${tokens.access}` } });
    assert.equal((await whoami()).status, 200); // B now has the token cached
    const revoked = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access, client_id: tokens.clientId }),
    });
    assert.equal(revoked.status, 200);
    const started = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - started < TOKEN_CACHE_MS) {
      status = (await whoami()).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401);
    assert.ok(
      performance.now() - started < 1000,
      `B refused it after ${Math.round(performance.now() - started)} ms, not at the cache's end`,
    );
  });
});
