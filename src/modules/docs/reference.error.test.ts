// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// When Scalar cannot be rendered (the plugin missing or broken): /docs and its script answer a
// problem+json 503 that points to the document, and the next request tries again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config.ts';
import { createServer } from '../../http/server.ts';
import type { App } from '../../http/types.ts';
import { ManualClock } from '../../lib/clock.ts';
import { expectProblem } from '../../../test/harness.ts';
import { registerReferenceRoutes } from './reference-routes.ts';
import { REFERENCE_CONFIGURATION } from './reference-config.ts';
import { scalarReference } from './scalar.ts';

describe('API reference unavailable', () => {
  let app: App;
  let loads = 0;
  const broken = async (): Promise<never> => {
    loads++;
    throw new Error('Cannot find package @scalar/fastify-api-reference');
  };

  before(async () => {
    const config = loadConfig({ CELLGATE_BASE_URL: 'http://cellgate.test' });
    app = createServer(config, new ManualClock(new Date('2026-11-22T12:00:00Z')), false);
    registerReferenceRoutes(app, config, scalarReference(REFERENCE_CONFIGURATION, broken));
    await app.ready();
  });
  after(() => app.close());

  it('answers 503 unavailable with Retry-After, naming the document', async () => {
    for (const url of ['/docs', '/docs/js/scalar.js']) {
      const response = await app.inject({ url });
      const problem = expectProblem(response, 503, 'unavailable');
      assert.equal(response.headers['retry-after'], '60', url);
      assert.match(problem.detail, /\/openapi\.yaml/);
    }
  });

  it('tries the plugin again on the next request instead of keeping the failure', async () => {
    const before = loads;
    await app.inject({ url: '/docs' });
    await app.inject({ url: '/docs' });
    assert.equal(loads, before + 2);
  });
});
