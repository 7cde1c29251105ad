// The `cellgate` command itself: --version, --help with a description for every flag, and the
// one human line `serve` prints once listening.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../modules/system/routes.ts';

const MAIN = join(import.meta.dirname, '..', 'entry.mjs');
const NODE = [process.execPath, '--no-deprecation', '--no-warnings', MAIN] as const;
const run = (...args: string[]) => spawnSync(NODE[0], [...NODE.slice(1), ...args], { env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30_000 });

describe('cellgate --version and --help', () => {
  for (const flag of ['--version', '-v']) {
    it(`${flag} prints the version the API reports, and the package's`, () => {
      const result = run(flag);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `cellgate ${VERSION}\n`);
      assert.equal(JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version, VERSION);
    });
  }

  it('--help lists every command and describes every flag', () => {
    const result = run('--help');
    assert.equal(result.status, 0, result.stderr);
    for (const command of ['serve', 'migrate', 'admin create-token', 'device simulate', 'demo']) assert.match(result.stdout, new RegExp(`^  ${command} +\\S`, 'm'), command);
    const flagLines = result.stdout.split('\n').filter((line) => /^\s+(-\w, )?--[a-z]/.test(line));
    assert.ok(flagLines.length >= 11, `flags: ${flagLines.length}`);
    for (const line of flagLines) {
      // The flag and its argument, then at least two spaces and a description of a few words.
      assert.match(line, /^\s+(-\w, )?--[a-z-]+( <[^>]+>)? {2,}\S+( \S+){2,}/, line);
    }
    for (const flag of ['--label', '--key', '--base-url', '--fail-rate', '--delivery-delay-ms', '--poll-wait', '--report-sending', '--inbound-from', '--inbound-text', '--help', '--version']) {
      assert.ok(flagLines.some((line) => line.includes(flag)), flag);
    }
  });
});

describe('cellgate serve start-up line', () => {
  it('prints one human line with the URLs and whether an admin token and SMTP are set', async () => {
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
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up line; stdout: ${stdout}`)), 40_000);
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          const end = stdout.indexOf('\n');
          if (end >= 0) {
            clearTimeout(timer);
            resolve(stdout.slice(0, end));
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}; stdout: ${stdout}`)));
      });
      assert.match(line, new RegExp(`^Cellgate ${VERSION.replaceAll('.', '\\.')} listening on http://127\\.0\\.0\\.1:\\d+ `));
      for (const part of ['base https://cellgate.example', 'docs https://cellgate.example/docs', 'console https://cellgate.example/console', 'health https://cellgate.example/health', 'admin token set', 'no SMTP']) {
        assert.ok(line.includes(part), `${part} in ${line}`);
      }
      assert.doesNotMatch(line, /cg_adm_/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(null)));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cellgate serve log format', () => {
  for (const [format, json] of [['json', true], ['pretty', false]] as const) {
    it(`writes ${format} log lines with CELLGATE_LOG_FORMAT=${format}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cellgate-logs-'));
      const child = spawn(NODE[0], [...NODE.slice(1), 'serve'], {
        env: { PATH: process.env.PATH, CELLGATE_PORT: '0', CELLGATE_LOG_LEVEL: 'info', CELLGATE_LOG_FORMAT: format, CELLGATE_DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` },
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

