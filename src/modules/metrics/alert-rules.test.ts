// The operator's alert rules (docs/alerts/cellgate.rules.yml): promtool checks them and runs their
// unit tests (docs/alerts/cellgate.rules.test.yml), and every metric they read must be one that
// GET /metrics exposes, so a renamed metric cannot leave an alert silently watching nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, useApp } from '../../../test/harness.ts';
import { parseExposition } from '../../../test/support/metrics.ts';

const ALERTS_DIR = fileURLToPath(new URL('../../../docs/alerts/', import.meta.url));
const RULES = join(ALERTS_DIR, 'cellgate.rules.yml');
const RULE_TESTS = join(ALERTS_DIR, 'cellgate.rules.test.yml');

/** promtool on PATH, or Debian's (package prometheus), or null. */
function findPromtool(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin'];
  return dirs.map((dir) => join(dir, 'promtool')).find((path) => existsSync(path)) ?? null;
}

const promtool = findPromtool();
const skip = promtool ? false : 'promtool is not installed (Debian: apt-get install prometheus; .ci/run installs it)';

function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(promtool as string, args, { cwd: ALERTS_DIR, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** The metric names the rules' expressions (and comments) name. */
function metricNamesInRules(): Set<string> {
  const text = readFileSync(RULES, 'utf8');
  return new Set(text.match(/\b(?:cellgate|nodejs|process)_[a-z0-9_]+\b/g) ?? []);
}

describe('alert rules (docs/alerts)', () => {
  it('promtool check rules accepts the rule file', { skip }, async () => {
    const result = await run(['check', 'rules', RULES]);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /SUCCESS: \d+ rules found/);
  });

  it('promtool test rules passes: each alert fires when it should and not otherwise', { skip }, async () => {
    const result = await run(['test', 'rules', RULE_TESTS]);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /SUCCESS/);
  });

  it('the rules cover phones offline, battery low, unhealthy SIMs, queues, webhooks, 5xx, latency and stream clients', () => {
    const alerts = [...readFileSync(RULES, 'utf8').matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]);
    assert.deepEqual(alerts, [
      'CellgatePhoneOffline',
      'CellgatePhoneBatteryLow',
      'CellgateSimQuarantined',
      'CellgateSimDegraded',
      'CellgateQueueBackingUp',
      'CellgateWebhookDeliveriesFailing',
      'CellgateServerErrors',
      'CellgateSlowRequests',
      'CellgateStreamClientsDropped',
    ]);
    const tested = new Set([...readFileSync(RULE_TESTS, 'utf8').matchAll(/alertname: (\w+)$/gm)].map((m) => m[1]));
    assert.deepEqual([...tested].sort(), [...alerts].sort(), 'every alert has a promtool test');
  });

  describe('metrics the rules read', () => {
    const t = useApp();

    it('are all exposed by GET /metrics', async () => {
      const response = await t.app.inject({ url: '/metrics', headers: admin });
      assert.equal(response.statusCode, 200);
      const { types } = parseExposition(response.body);
      const exposed = (name: string) => {
        if (types.has(name)) return true;
        // A histogram's series carry suffixes the TYPE line does not.
        const base = name.replace(/_(bucket|sum|count)$/, '');
        return base !== name && types.get(base) === 'histogram';
      };
      const names = metricNamesInRules();
      assert.ok(names.size >= 8, [...names].join(', '));
      assert.deepEqual(
        [...names].filter((name) => !exposed(name)),
        [],
      );
    });
  });
});
