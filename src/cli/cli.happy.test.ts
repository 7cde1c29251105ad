// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The `cellgate` command itself: --version, --help with a description for every flag, and the
// start-up banner `serve` prints once listening.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { VERSION } from '../modules/system/routes.ts';
import { startupBanner } from './serve.ts';

const MAIN = join(import.meta.dirname, '..', 'entry.mjs');
const NODE = [process.execPath, '--no-deprecation', '--no-warnings', MAIN] as const;
const run = (...args: string[]) =>
  spawnSync(NODE[0], [...NODE.slice(1), ...args], {
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
    timeout: 30_000,
  });

describe('cellgate --version and --help', () => {
  for (const flag of ['--version', '-v']) {
    it(`${flag} prints the version the API reports, and the package's`, () => {
      const result = run(flag);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `cellgate ${VERSION}\n`);
      assert.equal(
        JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version,
        VERSION,
      );
    });
  }

  it('--help lists every command and describes every flag', () => {
    const result = run('--help');
    assert.equal(result.status, 0, result.stderr);
    for (const command of ['serve', 'migrate', 'admin create-token', 'device simulate', 'demo'])
      assert.match(result.stdout, new RegExp(`^  ${command} +\\S`, 'm'), command);
    const flagLines = result.stdout.split('\n').filter((line) => /^\s+(-\w, )?--[a-z]/.test(line));
    assert.ok(flagLines.length >= 11, `flags: ${flagLines.length}`);
    for (const line of flagLines) {
      // The flag and its argument, then at least two spaces and a description of a few words.
      assert.match(line, /^\s+(-\w, )?--[a-z-]+( <[^>]+>)? {2,}\S+( \S+){2,}/, line);
    }
    for (const flag of [
      '--label',
      '--key',
      '--base-url',
      '--fail-rate',
      '--delivery-delay-ms',
      '--poll-wait',
      '--report-sending',
      '--inbound-from',
      '--inbound-text',
      '--help',
      '--version',
    ]) {
      assert.ok(
        flagLines.some((line) => line.includes(flag)),
        flag,
      );
    }
  });
});

describe('cellgate serve start-up banner', () => {
  it('prints a few human lines: version, listen and base URLs, database, card processor, docs, console, admin token and SMTP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-start-'));
    const child = spawn(NODE[0], [...NODE.slice(1), 'serve'], {
      env: {
        PATH: process.env.PATH,
        CELLGATE_PORT: '0',
        CELLGATE_LOG_LEVEL: 'warn',
        CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
        CELLGATE_BASE_URL: 'https://cellgate.example',
        CELLGATE_ADMIN_TOKEN: 'cg_adm_TestAdminToken0123456789',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8');
      // The banner is one write; its last line is the mail line.
      const banner = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up banner; stdout: ${stdout}`)), 40_000);
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          if (/^ {2}mail .*\n/m.test(stdout)) {
            clearTimeout(timer);
            resolve(stdout);
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}; stdout: ${stdout}`)));
      });
      const lines = banner.trimEnd().split('\n');
      assert.match(
        lines[0],
        new RegExp(`^Cellgate ${VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+$`),
      );
      assert.ok(lines.length <= 12, banner);
      for (const [name, value] of [
        ['base URL', 'https://cellgate.example'],
        ['database', `sqlite ${join(dir, 'db.sqlite')}`],
        // A public base URL without Stripe: no card rail, and the banner says so.
        [
          'card processor',
          'off (no card rail; set CELLGATE_STRIPE_SECRET_KEY and CELLGATE_STRIPE_WEBHOOK_SECRET for Stripe Checkout)',
        ],
        ['docs', 'https://cellgate.example/docs'],
        ['console', 'https://cellgate.example/console'],
        ['health', 'https://cellgate.example/health'],
        ['admin token', 'set'],
      ]) {
        assert.ok(
          lines.some((line) => new RegExp(`^ {2}${name} +`).test(line) && line.endsWith(` ${value}`)),
          `${name}: ${value} in\n${banner}`,
        );
      }
      assert.ok(
        lines.some((line) => /^ {2}mail +no SMTP/.test(line)),
        banner,
      );
      assert.doesNotMatch(banner, /cg_adm_|WARNING/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(null)));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns loudly when the local card page is on, and names PostgreSQL without its credentials', () => {
    const config = loadConfig({
      CELLGATE_DATABASE_URL: 'postgres://cellgate:s3cret-pw@db.internal:5433/cellgate_prod?sslmode=require',
      CELLGATE_BASE_URL: 'http://127.0.0.1:8080',
    });
    const banner = startupBanner(config, 'http://127.0.0.1:8080');
    assert.match(banner, /^ {2}database +postgres db\.internal:5433\/cellgate_prod$/m);
    assert.match(banner, /^ {2}card processor +local \(the built-in card page: no card is charged\)$/m);
    assert.match(
      banner,
      /^WARNING: CELLGATE_CARD_PROCESSOR is local: the built-in card page credits money without charging any card\. It must not face the internet/m,
    );
    assert.doesNotMatch(banner, /s3cret|cellgate:/);
    // Billing off: the local page credits nothing, so there is nothing to warn about.
    assert.doesNotMatch(startupBanner(loadConfig({ CELLGATE_BILLING: 'off' }), 'http://127.0.0.1:8080'), /WARNING/);
    assert.match(
      startupBanner(
        loadConfig({ CELLGATE_STRIPE_SECRET_KEY: 'sk_test_abc123', CELLGATE_STRIPE_WEBHOOK_SECRET: 'whsec_abc123' }),
        'x',
      ),
      /^ {2}card processor +stripe \(Stripe Checkout\)$/m,
    );
  });
});

describe('cellgate serve log format', () => {
  for (const [format, json] of [
    ['json', true],
    ['pretty', false],
  ] as const) {
    it(`writes ${format} log lines with CELLGATE_LOG_FORMAT=${format}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cellgate-logs-'));
      const child = spawn(NODE[0], [...NODE.slice(1), 'serve'], {
        env: {
          PATH: process.env.PATH,
          CELLGATE_PORT: '0',
          CELLGATE_LOG_LEVEL: 'info',
          CELLGATE_LOG_FORMAT: format,
          CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        let stdout = '';
        child.stdout.setEncoding('utf8');
        // A log line of the server (not the start-up line) names where it listens.
        const logLine = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no log line; stdout: ${stdout}`)), 40_000);
          child.stdout.on('data', (chunk: string) => {
            stdout += chunk;
            const line = stdout.split('\n').find((l) => /Server listening/.test(l));
            if (line) {
              clearTimeout(timer);
              resolve(line);
            }
          });
          child.on('exit', (code) => reject(new Error(`exited ${code}; stdout: ${stdout}`)));
        });
        if (json) assert.equal(JSON.parse(logLine).level, 30);
        else assert.throws(() => JSON.parse(logLine), 'a pretty line is not JSON');
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(null)));
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
