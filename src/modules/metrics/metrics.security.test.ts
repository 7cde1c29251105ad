import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';
import { admin, bearer, expectProblem, useApp } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';

const METRICS_TOKEN = 'metrics-scrape-token-0123456789';

describe('GET /metrics credentials', () => {
  let line: Line;
  const t = useApp({ env: { CELLGATE_METRICS_TOKEN: METRICS_TOKEN } });
  before(async () => {
    line = await activeLine(t);
  });

  const scrape = (headers: Record<string, string> = {}) => t.app.inject({ url: '/metrics', headers });

  it('refuses a request without a credential with 401 problem+json', async () => {
    expectProblem(await scrape(), 401, 'unauthenticated');
  });

  it('refuses a wrong metrics token with 401', async () => {
    expectProblem(await scrape(bearer(`${METRICS_TOKEN}x`)), 401, 'unauthenticated');
    expectProblem(await scrape(bearer('metrics-scrape-token-012345678')), 401, 'unauthenticated');
  });

  it('refuses an unknown admin token with 401', async () => {
    expectProblem(await scrape(bearer('cg_adm_UnknownAdminToken0123456789')), 401, 'unauthenticated');
  });

  it('refuses an agent API key with 403, like the rest of the admin surface', async () => {
    expectProblem(await scrape(line.org.headers), 403, 'forbidden');
  });

  it('refuses a device key sent as a bearer token with 401', async () => {
    expectProblem(await scrape(bearer(line.device.key)), 401, 'unauthenticated');
  });

  it('takes the metrics token and the admin token', async () => {
    assert.equal((await scrape(bearer(METRICS_TOKEN))).statusCode, 200);
    assert.equal((await scrape(admin)).statusCode, 200);
  });

  it('keeps the metrics token to /metrics: it opens no admin route', async () => {
    expectProblem(
      await t.app.inject({ url: '/v1/admin/outbox', headers: bearer(METRICS_TOKEN) }),
      401,
      'unauthenticated',
    );
  });

  it('is not in the OpenAPI document', async () => {
    const document = (await t.app.inject({ url: '/openapi.json' })).json();
    assert.equal(document.paths['/metrics'], undefined);
  });
});

describe('GET /metrics without CELLGATE_METRICS_TOKEN', () => {
  const t = useApp();

  it('takes only admin tokens', async () => {
    expectProblem(await t.app.inject({ url: '/metrics', headers: bearer(METRICS_TOKEN) }), 401, 'unauthenticated');
    assert.equal((await t.app.inject({ url: '/metrics', headers: admin })).statusCode, 200);
  });
});

describe('CELLGATE_METRICS_TOKEN', () => {
  it('refuses a token shorter than 16 characters without echoing it', () => {
    assert.throws(
      () => loadConfig({ CELLGATE_METRICS_TOKEN: 'short-token' }),
      (error: Error) =>
        error instanceof ConfigError &&
        /CELLGATE_METRICS_TOKEN/.test(error.message) &&
        !error.message.includes('short-token'),
    );
  });
});
