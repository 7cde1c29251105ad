// GET /v1/device/agent.mjs when the agent cannot be built: a problem+json 503 that says why,
// never a crash, and the next request tries again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { AgentBundle } from './agent-bundle.ts';
import { registerAgentRoute } from './agent-routes.ts';

describe('GET /v1/device/agent.mjs without a working esbuild', () => {
  let t: TestApp;
  let esbuildInstalled = false;
  let buildFails = false;
  // The real route, mounted under /probe with a bundle whose esbuild the test controls.
  const bundle = new AgentBundle(async () => {
    if (!esbuildInstalled)
      throw Object.assign(new Error("Cannot find package 'esbuild'"), { code: 'ERR_MODULE_NOT_FOUND' });
    const esbuild = await import('esbuild');
    return { build: buildFails ? () => Promise.reject(new Error('Build failed with 1 error')) : esbuild.build };
  });

  before(async () => {
    t = await startApp({
      routes: (app) => void app.register(async (scope) => registerAgentRoute(scope, bundle), { prefix: '/probe' }),
    });
  });
  after(() => t.close());

  it('answers 503 unavailable naming esbuild, then serves the agent once esbuild is there', async () => {
    const missing = await t.app.inject({ url: '/probe/v1/device/agent.mjs' });
    const problem = expectProblem(missing, 503, 'unavailable');
    assert.match(
      problem.detail,
      /^The device agent is not available: esbuild, which builds the agent, is not installed on the server/,
    );
    assert.equal(missing.headers['retry-after'], '60');

    buildFails = true;
    esbuildInstalled = true;
    const failed = expectProblem(await t.app.inject({ url: '/probe/v1/device/agent.mjs' }), 503, 'unavailable');
    assert.match(failed.detail, /could not be built on the server \(its log has the reason\)/);
    assert.doesNotMatch(failed.detail, /Build failed/, 'the build error stays in the log');

    buildFails = false;
    const served = await t.app.inject({ url: '/probe/v1/device/agent.mjs' });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'text/javascript; charset=utf-8');
  });
});
