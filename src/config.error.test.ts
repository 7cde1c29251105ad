// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The process refuses to start on a bad environment value: exit code 1 and one stderr line
// naming the variable. Plus the parsing rules of loadConfig itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.ts';

const MAIN = join(import.meta.dirname, 'entry.mjs');

function start(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-config-'));
  try {
    const { CELLGATE_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}` } = env;
    const result = spawnSync(process.execPath, ['--no-deprecation', '--no-warnings', MAIN, 'serve'], {
      env: { PATH: process.env.PATH, CELLGATE_PORT: '0', CELLGATE_LOG_LEVEL: 'silent', ...env, CELLGATE_DATABASE_URL },
      encoding: 'utf8',
      timeout: 50_000,
    });
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function assertRefused(result: ReturnType<typeof start>, variable: string) {
  assert.equal(result.status, 1, `exit code (stderr: ${result.stderr})`);
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one stderr line, got: ${result.stderr}`);
  assert.match(lines[0], new RegExp(`^cellgate: ${variable} `));
}

describe('configuration at start', () => {
  for (const port of ['eighty', '65536']) {
    it(`exits 1 with one line naming CELLGATE_PORT when it is ${JSON.stringify(port)}`, () => {
      assertRefused(start({ CELLGATE_PORT: port }), 'CELLGATE_PORT');
    });
  }

  for (const url of ['mysql://localhost/db', 'sqlite:']) {
    it(`exits 1 with one line naming CELLGATE_DATABASE_URL when it is ${JSON.stringify(url)}`, () => {
      assertRefused(start({ CELLGATE_DATABASE_URL: url }), 'CELLGATE_DATABASE_URL');
    });
  }

  it('exits 1 with one line naming CELLGATE_REQUEST_TIMEOUT_MS when it is "30s"', () => {
    assertRefused(start({ CELLGATE_REQUEST_TIMEOUT_MS: '30s' }), 'CELLGATE_REQUEST_TIMEOUT_MS');
  });

  it('exits 1 with one line naming CELLGATE_PRICES when it is not JSON', () => {
    assertRefused(start({ CELLGATE_PRICES: '{tiers' }), 'CELLGATE_PRICES');
  });

  it('exits 1 with one line naming CELLGATE_HOST when it is not an address (999.1.1.1), no stack trace', () => {
    const result = start({ CELLGATE_HOST: '999.1.1.1' });
    assertRefused(result, 'CELLGATE_HOST');
    assert.match(result.stderr, /"999\.1\.1\.1"/);
  });

  for (const [name, url] of [
    ['CELLGATE_SMTP_URL', 'smtp//mailer:s3cret-Pass@mail.example.com:587'],
    ['CELLGATE_REDIS_URL', 'redsi://:s3cret-Pass@redis.example.com:6379'],
    ['CELLGATE_DATABASE_URL', 'postgress://app:s3cret-Pass@db.example.com/cellgate'],
    ['CELLGATE_X402_FACILITATOR_URL', 'htps://user:s3cret-Pass@x402.example.com'],
  ] as const) {
    it(`a mistyped ${name} is refused naming it, the URL shown with its password masked`, () => {
      const result = start({ [name]: url });
      assertRefused(result, name);
      assert.doesNotMatch(result.stderr, /s3cret-Pass/);
      assert.match(result.stderr, /:\*\*\*@/);
    });
  }

  it('does not echo a bad admin token in its message', () => {
    const result = start({ CELLGATE_ADMIN_TOKEN: 'cg_adm_short' });
    assertRefused(result, 'CELLGATE_ADMIN_TOKEN');
    assert.doesNotMatch(result.stderr, /cg_adm_short/);
  });
});

describe('loadConfig', () => {
  it('applies the contract defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/cellgate.db');
    assert.equal(config.baseUrl, 'http://127.0.0.1:8080');
    assert.equal(config.docsUrl, 'http://127.0.0.1:8080/docs');
    assert.equal(config.consoleUrl, 'http://127.0.0.1:8080/console');
    assert.equal(config.rateLimit, 50);
    assert.equal(config.rateLimitBurst, 100);
    assert.equal(config.signUpsPerHourPerIp, 10);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.smtpUrl, null);
    assert.equal(config.redisUrl, null);
    assert.equal(config.webhooksAllowPrivate, false);
    assert.equal(config.requestTimeoutMs, 30_000);
    assert.equal(config.headersTimeoutMs, 15_000);
  });

  it('turns the sign-up limit off with CELLGATE_RATE_LIMIT=0, unless it is set on its own', () => {
    assert.equal(loadConfig({ CELLGATE_RATE_LIMIT: '0' }).signUpsPerHourPerIp, 0);
    assert.equal(loadConfig({ CELLGATE_RATE_LIMIT: '0', CELLGATE_SIGNUP_RATE_LIMIT: '5' }).signUpsPerHourPerIp, 5);
    assert.equal(loadConfig({ CELLGATE_RATE_LIMIT: '20' }).signUpsPerHourPerIp, 10);
  });

  it('turns billing on by default, with the contract prices and no x402 network', () => {
    const config = loadConfig({});
    assert.equal(config.billing, true);
    assert.equal(config.prices.tiers.starter.priceMicros, 20_000_000);
    assert.equal(config.prices.tiers.pro.includedCells, 10);
    assert.equal(config.prices.minAmountMicros, 5_000_000);
    assert.equal(config.x402BasePayTo, null);
    assert.equal(config.x402SolanaPayTo, null);
    assert.equal(config.x402Testnet, false);
  });

  it('reads CELLGATE_BILLING=off, CELLGATE_PRICES and the seller addresses (the EVM one checksummed)', () => {
    const config = loadConfig({
      CELLGATE_BILLING: 'off',
      CELLGATE_PRICES: '{"tiers": {"pro": {"price_usd": 90, "cells": 8}}, "min_amount_usd": 10}',
      CELLGATE_X402_BASE_PAY_TO: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
      CELLGATE_X402_SOLANA_PAY_TO: 'So11111111111111111111111111111111111111112',
      CELLGATE_X402_TESTNET: 'true',
    });
    assert.equal(config.billing, false);
    assert.deepEqual(config.prices.tiers.pro, { priceMicros: 90_000_000, includedCells: 8 });
    assert.equal(config.prices.minAmountMicros, 10_000_000);
    assert.equal(config.x402BasePayTo, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
    assert.equal(config.x402SolanaPayTo, 'So11111111111111111111111111111111111111112');
    assert.equal(config.x402Testnet, true);
  });

  it('reads the request and headers timeouts; the headers timeout defaults to at most the request timeout', () => {
    const both = loadConfig({ CELLGATE_REQUEST_TIMEOUT_MS: '60000', CELLGATE_HEADERS_TIMEOUT_MS: '20000' });
    assert.equal(both.requestTimeoutMs, 60_000);
    assert.equal(both.headersTimeoutMs, 20_000);
    const short = loadConfig({ CELLGATE_REQUEST_TIMEOUT_MS: '5000' });
    assert.equal(short.headersTimeoutMs, 5000);
  });

  it('derives docs and console URLs from CELLGATE_BASE_URL without a trailing slash', () => {
    const config = loadConfig({ CELLGATE_BASE_URL: 'https://api.example.com/' });
    assert.equal(config.baseUrl, 'https://api.example.com');
    assert.equal(config.docsUrl, 'https://api.example.com/docs');
  });

  for (const [name, value] of [
    ['CELLGATE_PORT', '-1'],
    ['CELLGATE_PORT', '80.5'],
    ['CELLGATE_DATABASE_URL', 'cellgate.db'],
    ['CELLGATE_RATE_LIMIT', 'fast'],
    ['CELLGATE_RATE_LIMIT_BURST', '-3'],
    ['CELLGATE_SIGNUP_RATE_LIMIT', '1e3'],
    ['CELLGATE_MAX_STREAMS_PER_ORG', '0'],
    ['CELLGATE_MAX_STREAMS_PER_ORG', 'many'],
    ['CELLGATE_LOG_LEVEL', 'loud'],
    ['CELLGATE_LOG_FORMAT', 'xml'],
    ['CELLGATE_SMTP_URL', 'http://mail.example.com'],
    ['CELLGATE_REDIS_URL', 'localhost:6379'],
    ['CELLGATE_BASE_URL', 'ftp://example.com'],
    ['CELLGATE_WEBHOOKS_ALLOW_PRIVATE', 'yes'],
    ['CELLGATE_X402_TESTNET', 'maybe'],
    ['CELLGATE_BILLING', 'true'],
    ['CELLGATE_BILLING', 'ON'],
    ['CELLGATE_PRICES', 'cheap'],
    ['CELLGATE_PRICES', '{"tiers": {"starter": {"price_usd": -1, "cells": 1}}}'],
    ['CELLGATE_PRICES', '{"sms_usd": 0.01}'],
    ['CELLGATE_X402_BASE_PAY_TO', '0x1234'],
    ['CELLGATE_X402_BASE_PAY_TO', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d35A'],
    ['CELLGATE_X402_SOLANA_PAY_TO', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'],
    ['CELLGATE_REQUEST_TIMEOUT_MS', 'soon'],
    ['CELLGATE_REQUEST_TIMEOUT_MS', '50'],
    ['CELLGATE_REQUEST_TIMEOUT_MS', '600001'],
    ['CELLGATE_HEADERS_TIMEOUT_MS', '-1'],
    ['CELLGATE_HEADERS_TIMEOUT_MS', '2.5'],
  ] as const) {
    it(`rejects ${name}=${value} with a message naming it`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${name} `),
      );
    });
  }

  it('shows a bad URL with its password masked, whatever the password holds', () => {
    for (const [name, url, shown] of [
      ['CELLGATE_SMTP_URL', 'smtp//mailer:p@ss/w:rd@mail.example.com', 'smtp//mailer:***@mail.example.com'],
      ['CELLGATE_REDIS_URL', 'http://:hunter2hunter2@redis.example.com', 'http://:***@redis.example.com'],
      ['CELLGATE_DATABASE_URL', 'mysql://root:toor-toor@db/app', 'mysql://root:***@db/app'],
      ['CELLGATE_X402_FACILITATOR_URL', 'ftp://u:pw-pw-pw-pw@x402.example.com', 'ftp://u:***@x402.example.com'],
      ['CELLGATE_BASE_URL', 'redis:admin:letmein-now@example.com', 'redis:admin:***@example.com'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: url }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(`${name} `) &&
          error.message.includes(JSON.stringify(shown)) &&
          !/p@ss|hunter2|toor|pw-pw|letmein/.test(error.message),
        url,
      );
    }
  });

  for (const host of ['999.1.1.1', '1.2.3', 'exa mple.com', 'host_name', '-host', '[::1]', '10.0.0.1:80']) {
    it(`rejects CELLGATE_HOST=${host} with a message naming it`, () => {
      assert.throws(
        () => loadConfig({ CELLGATE_HOST: host }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith('CELLGATE_HOST '),
      );
    });
  }

  it('takes an IP address or a host name as CELLGATE_HOST', () => {
    for (const host of ['0.0.0.0', '::', '::1', '192.168.1.10', 'localhost', 'cellgate.internal', 'host-1'])
      assert.equal(loadConfig({ CELLGATE_HOST: host }).host, host);
  });

  it('rejects a headers timeout longer than the request timeout, naming both', () => {
    assert.throws(
      () => loadConfig({ CELLGATE_REQUEST_TIMEOUT_MS: '10000', CELLGATE_HEADERS_TIMEOUT_MS: '20000' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^CELLGATE_HEADERS_TIMEOUT_MS .*CELLGATE_REQUEST_TIMEOUT_MS \(10000\).*"20000"/.test(error.message),
    );
  });
});
