// The MCP conformance suite (@modelcontextprotocol/conformance, its own CLI) against /mcp on a real
// port, for the server scenarios that apply: initialize, ping, tools-list, DNS-rebinding
// protection, and SSE polling, which this stateless server does not do (see the expected-failures
// file beside this one for why, and for the scenarios not run). The CLI sends no credential, so it
// talks to a loopback forwarder that adds the organization's API key and passes everything else,
// Host and Origin included, as sent. Offline: the suite needs nothing but the server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifiedOrganization } from '../../../test/harness.ts';
import { startListening, type McpTestApp } from '../../../test/support/mcp-client.ts';

const CLI = fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/dist/index.js'));
const EXPECTED_FAILURES = fileURLToPath(new URL('./conformance-expected-failures.yml', import.meta.url));
const PASSING = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
}

/** A forwarder on loopback that adds `authorization` to every request it passes to `origin`. */
async function withKey(origin: string, apiKey: string): Promise<Server> {
  const { port } = new URL(origin);
  const forwarder = createServer((request, response) => {
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: Number(port),
        method: request.method,
        path: request.url,
        headers: { ...request.headers, authorization: `Bearer ${apiKey}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  return forwarder;
}

/** Runs one scenario through the suite's CLI; answers its exit code, output and checks. */
function runScenario(url: string, scenario: string, outputDir: string) {
  const dir = join(outputDir, scenario);
  return new Promise<{ code: number; output: string; checks: Check[] }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'server', '--url', url, '--scenario', scenario, '--expected-failures', EXPECTED_FAILURES, '-o', dir],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const [run] = existsSync(dir) ? readdirSync(dir) : [];
        const checks = run ? (JSON.parse(readFileSync(join(dir, run, 'checks.json'), 'utf8')) as Check[]) : [];
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}`, checks });
      },
    );
  });
}

describe('the MCP conformance suite against /mcp', () => {
  let t: McpTestApp;
  let forwarder: Server;
  let outputDir: string;
  let results: Map<string, Awaited<ReturnType<typeof runScenario>>>;

  before(async () => {
    t = await startListening();
    const org = await verifiedOrganization(t);
    forwarder = await withKey(t.origin, org.apiKey);
    const address = forwarder.address();
    assert.ok(address && typeof address === 'object');
    const url = `http://127.0.0.1:${address.port}/mcp`;
    outputDir = mkdtempSync(join(tmpdir(), 'cellgate-conformance-'));
    const scenarios = [...PASSING, 'server-sse-polling'];
    const runs = await Promise.all(scenarios.map((scenario) => runScenario(url, scenario, outputDir)));
    results = new Map(scenarios.map((scenario, index) => [scenario, runs[index]!]));
  });
  after(async () => {
    await new Promise((resolve) => forwarder?.close(resolve));
    await t?.close();
    if (outputDir) rmSync(outputDir, { recursive: true, force: true });
  });

  for (const scenario of PASSING)
    it(`passes ${scenario}`, () => {
      const result = results.get(scenario)!;
      assert.equal(result.code, 0, result.output);
      assert.ok(result.checks.length > 0, result.output);
      const notPassed = result.checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
      assert.deepEqual(notPassed, [], result.output);
    });

  it('rejects a rebinding Host and Origin and accepts loopback ones (dns-rebinding-protection)', () => {
    const ids = results.get('dns-rebinding-protection')!.checks.map((check) => `${check.id} ${check.status}`);
    assert.ok(ids.includes('localhost-host-rebinding-rejected SUCCESS'), ids.join('\n'));
    assert.ok(ids.includes('localhost-host-valid-accepted SUCCESS'), ids.join('\n'));
  });

  it('fails no SSE polling check, and warns for exactly the session, priming event and retry field it does not send', () => {
    const result = results.get('server-sse-polling')!;
    assert.equal(result.code, 0, result.output);
    const flagged = result.checks
      .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
      .map((check) => `${check.id} ${check.status}`)
      .sort();
    assert.deepEqual(flagged, [
      'server-sse-polling-session WARNING',
      'server-sse-priming-event WARNING',
      'server-sse-retry-field WARNING',
    ]);
  });
});
