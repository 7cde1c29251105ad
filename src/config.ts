// One validated configuration object from the environment. A bad value stops the process
// with one line naming the variable (see main.ts).
import { isIP, isIPv4 } from 'node:net';
import { isHost } from './lib/host.ts';
import { maskedUrl } from './lib/masked-url.ts';
import { canonicalAddress, type Network } from './modules/billing/networks.ts';
import {
  DEFAULT_MAX_PAYMENT_MICROS,
  MAX_OPERATOR_CREDIT_MICROS,
  parseUsd,
  usdString,
} from './modules/billing/money.ts';
import { DEFAULT_PRICES, parsePrices, PricesError, type Prices } from './modules/billing/pricing.ts';
import { MppConfigError, parseMppMethods, type MppConfig } from './modules/billing/mpp-config.ts';

/** What loadConfig returns: one validated value per CELLGATE_* variable. */
export type Config = ReturnType<typeof loadConfig>;

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** CELLGATE_STRIPE_API_BASE: another Stripe API address (a local double in tests); null: Stripe's. */
  apiBase: string | null;
}

export type CardProcessor = 'stripe' | 'local' | 'off';

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function fail(name: string, expected: string, value: string): never {
  throw new ConfigError(`${name} must be ${expected} (got ${JSON.stringify(value)})`);
}

/** `parse` of the variable's value, or undefined when it is unset or empty. */
function read<T>(env: Env, name: string, parse: (raw: string) => T): T | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : parse(raw);
}

/** A shared secret of at least 16 characters, or null when unset; never echoed in errors. */
const readSecret = (env: Env, name: string): string | null =>
  read(env, name, (raw) => (raw.length < 16 ? fail(name, 'a secret of at least 16 characters', '<redacted>') : raw)) ??
  null;

const readInt = (env: Env, name: string, fallback: number, min: number, max: number): number =>
  read(env, name, (raw) =>
    !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max
      ? fail(name, `an integer from ${min} to ${max}`, raw)
      : Number(raw),
  ) ?? fallback;

function readBool(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  return fail(name, 'true or false', raw);
}

/**
 * Off, or a comma-separated list of proxy addresses and CIDR blocks. No hop count: it cannot tell
 * the balancer from a client that connects directly (Fastify 5 refuses to trust one).
 */
function readTrustProxy(env: Env): false | string[] {
  const name = 'CELLGATE_TRUST_PROXY';
  const raw = (env[name] ?? '').trim();
  if (raw === '' || raw === 'off') return false;
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const bits = isIP(address) === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= bits);
    if (isIP(address) === 0 || !prefixOk || rest.length > 0)
      fail(name, 'off, or proxy addresses and CIDR blocks separated by commas', raw);
  }
  return entries;
}

const readOnOff = (env: Env, name: string, fallback: boolean): boolean =>
  read(env, name, (raw) => (raw === 'on' ? true : raw === 'off' ? false : fail(name, 'on or off', raw))) ?? fallback;

/** A URL of one of `protocols`; a bad one is refused naming the variable, its password masked. */
const readUrl = (env: Env, name: string, protocols: string[]): string | null =>
  read(env, name, (raw) =>
    protocols.includes(URL.parse(raw)?.protocol ?? '')
      ? raw.replace(/\/+$/, '')
      : fail(name, `a URL (${protocols.join(', ')})`, maskedUrl(raw)),
  ) ?? null;

const readPayTo = (env: Env, name: string, network: Network): string | null =>
  read(
    env,
    name,
    (raw) =>
      canonicalAddress(network, raw) ??
      fail(name, network === 'base' ? 'an EVM address (EIP-55 checksum)' : 'a base58 Solana address', raw),
  ) ?? null;

/** `parse(raw)` of the variable `name`, its parser's own error (`Kind`) restated as a ConfigError. */
function parsed<T>(name: string, raw: string, parse: (raw: string) => T, Kind: new (...args: never[]) => Error): T {
  try {
    return parse(raw);
  } catch (error) {
    if (error instanceof Kind) throw new ConfigError(`${name} ${error.message}`);
    throw error;
  }
}

/** Both variables or neither (null); values are never echoed. */
function readPair(env: Env, first: string, second: string, hint: string): [string, string] | null {
  const [a, b] = [env[first] || null, env[second] || null];
  if (a === null && b === null) return null;
  if (a === null) throw new ConfigError(`${first} must be set with ${second} (${hint})`);
  if (b === null) throw new ConfigError(`${second} must be set with ${first} (${hint})`);
  return [a, b];
}

/** Both secrets or neither; values are never echoed. */
function readStripe(env: Env): StripeConfig | null {
  const apiBase = readUrl(env, 'CELLGATE_STRIPE_API_BASE', ['http:', 'https:']);
  const pair = readPair(
    env,
    'CELLGATE_STRIPE_SECRET_KEY',
    'CELLGATE_STRIPE_WEBHOOK_SECRET',
    'set both, or neither for the local card page',
  );
  if (pair === null) {
    if (apiBase !== null)
      fail('CELLGATE_STRIPE_API_BASE', 'unset without CELLGATE_STRIPE_SECRET_KEY', maskedUrl(apiBase));
    return null;
  }
  const [secretKey, webhookSecret] = pair;
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.test(secretKey))
    fail('CELLGATE_STRIPE_SECRET_KEY', 'a Stripe secret key (sk_live_..., sk_test_... or rk_...)', '<redacted>');
  if (!/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret))
    fail('CELLGATE_STRIPE_WEBHOOK_SECRET', "a Stripe endpoint's signing secret (whsec_...)", '<redacted>');
  return { secretKey, webhookSecret, apiBase };
}

/** Both or neither; the secret is never echoed. */
function readMpp(env: Env): MppConfig | null {
  const pair = readPair(env, 'CELLGATE_MPP_SECRET', 'CELLGATE_MPP_METHODS', 'set both to offer MPP, or neither');
  if (pair === null) return null;
  const [secret, methods] = pair;
  if (secret.length < 32)
    fail('CELLGATE_MPP_SECRET', 'a secret of at least 32 characters (e.g. openssl rand -base64 32)', '<redacted>');
  return { secret, methods: parsed('CELLGATE_MPP_METHODS', methods, parseMppMethods, MppConfigError) };
}

/** localhost (and *.localhost), 127.0.0.0/8 or ::1: an address nobody else reaches. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/**
 * The built-in card page credits money without charging a card, so it is never the default on
 * an address others can reach: Stripe when its keys are set, else local on loopback, else off.
 */
function readCardProcessor(env: Env, stripe: StripeConfig | null, baseUrl: string): CardProcessor {
  const raw = env.CELLGATE_CARD_PROCESSOR;
  if (raw === undefined || raw === '') return stripe ? 'stripe' : isLoopbackUrl(baseUrl) ? 'local' : 'off';
  if (raw !== 'stripe' && raw !== 'local' && raw !== 'off')
    return fail('CELLGATE_CARD_PROCESSOR', 'stripe, local or off', raw);
  if (raw === 'stripe' && !stripe)
    fail(
      'CELLGATE_CARD_PROCESSOR',
      'local or off without CELLGATE_STRIPE_SECRET_KEY and CELLGATE_STRIPE_WEBHOOK_SECRET',
      raw,
    );
  return raw;
}

/** At least the minimum payment (else no top-up could be paid), at most one operator credit. */
function readMaxPayment(env: Env, prices: Prices): number {
  const raw = env.CELLGATE_MAX_PAYMENT_USD;
  if (raw === undefined || raw === '') return Math.max(DEFAULT_MAX_PAYMENT_MICROS, prices.minAmountMicros);
  const micros = parseUsd(raw);
  if (micros === null || micros < prices.minAmountMicros || micros > MAX_OPERATOR_CREDIT_MICROS) {
    fail(
      'CELLGATE_MAX_PAYMENT_USD',
      `a dollar amount from ${usdString(prices.minAmountMicros)} (min_amount_usd) to ${usdString(MAX_OPERATOR_CREDIT_MICROS)} with at most 2 decimals`,
      raw,
    );
  }
  return micros;
}

/** The address to listen on (src/lib/host.ts). */
const readHost = (env: Env): string =>
  read(env, 'CELLGATE_HOST', (raw) =>
    isHost(raw)
      ? raw
      : fail('CELLGATE_HOST', 'an IP address or a host name of this machine (127.0.0.1, 0.0.0.0, ::, localhost)', raw),
  ) ?? '127.0.0.1';

const readDatabaseUrl = (env: Env): string =>
  read(env, 'CELLGATE_DATABASE_URL', (raw) =>
    /^sqlite:.+/.test(raw) || /^postgres(ql)?:\/\/.+/.test(raw)
      ? raw
      : fail('CELLGATE_DATABASE_URL', 'sqlite:<path> or postgres://...', maskedUrl(raw)),
  ) ?? 'sqlite:./data/cellgate.db';

export function loadConfig(env: Env = process.env) {
  const port = readInt(env, 'CELLGATE_PORT', 8080, 0, 65535);
  const host = readHost(env);
  const baseUrl =
    readUrl(env, 'CELLGATE_BASE_URL', ['http:', 'https:']) ??
    `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const adminToken = env.CELLGATE_ADMIN_TOKEN || null;
  if (adminToken !== null && !/^cg_adm_[A-Za-z0-9]{16,}$/.test(adminToken)) {
    fail('CELLGATE_ADMIN_TOKEN', 'cg_adm_ followed by at least 16 letters or digits', '<redacted>');
  }
  const logLevel = env.CELLGATE_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) fail('CELLGATE_LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevel);
  const logFormat = env.CELLGATE_LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json') fail('CELLGATE_LOG_FORMAT', 'pretty or json', logFormat);
  const rateLimit = readInt(env, 'CELLGATE_RATE_LIMIT', 50, 0, 1_000_000);
  const requestTimeoutMs = readInt(env, 'CELLGATE_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const headersTimeoutMs = readInt(
    env,
    'CELLGATE_HEADERS_TIMEOUT_MS',
    Math.min(15_000, requestTimeoutMs),
    100,
    600_000,
  );
  if (headersTimeoutMs > requestTimeoutMs) {
    fail(
      'CELLGATE_HEADERS_TIMEOUT_MS',
      `at most CELLGATE_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
      String(headersTimeoutMs),
    );
  }
  const stripe = readStripe(env);
  const prices =
    read(env, 'CELLGATE_PRICES', (raw) => parsed('CELLGATE_PRICES', raw, parsePrices, PricesError)) ?? DEFAULT_PRICES;
  return {
    port,
    host,
    databaseUrl: readDatabaseUrl(env),
    baseUrl,
    docsUrl: readUrl(env, 'CELLGATE_DOCS_URL', ['http:', 'https:']) ?? `${baseUrl}/docs`,
    consoleUrl: readUrl(env, 'CELLGATE_CONSOLE_URL', ['http:', 'https:']) ?? `${baseUrl}/console`,
    adminToken,
    /** A bearer token for GET /metrics only (admin tokens work too). */
    metricsToken: readSecret(env, 'CELLGATE_METRICS_TOKEN'),
    smtpUrl: readUrl(env, 'CELLGATE_SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: env.CELLGATE_SMTP_FROM || 'Cellgate <no-reply@cellgate.local>',
    redisUrl: readUrl(env, 'CELLGATE_REDIS_URL', ['redis:', 'rediss:']),
    /** Requests per second per credential; 0 turns limiting off. */
    rateLimit,
    rateLimitBurst: readInt(env, 'CELLGATE_RATE_LIMIT_BURST', rateLimit * 2, 0, 2_000_000),
    // CELLGATE_RATE_LIMIT=0 turns limiting off (contract §9): the per-address sign-up limit too,
    // unless it is set on its own.
    signUpsPerHourPerIp: readInt(env, 'CELLGATE_SIGNUP_RATE_LIMIT', rateLimit === 0 ? 0 : 10, 0, 1_000_000),
    /** Whose X-Forwarded-For gives the client address (rate limits, logs): false is the socket's peer. */
    trustProxy: readTrustProxy(env),
    /** Concurrent event streams, console live views and MCP waits per organization (each kind). */
    maxStreamsPerOrg: readInt(env, 'CELLGATE_MAX_STREAMS_PER_ORG', 100, 1, 100_000),
    logLevel,
    logFormat,
    webhooksAllowPrivate: readBool(env, 'CELLGATE_WEBHOOKS_ALLOW_PRIVATE'),
    x402BasePayTo: readPayTo(env, 'CELLGATE_X402_BASE_PAY_TO', 'base'),
    x402SolanaPayTo: readPayTo(env, 'CELLGATE_X402_SOLANA_PAY_TO', 'solana'),
    x402Testnet: readBool(env, 'CELLGATE_X402_TESTNET'),
    x402FacilitatorUrl: readUrl(env, 'CELLGATE_X402_FACILITATOR_URL', ['http:', 'https:']),
    x402FacilitatorTimeoutMs: readInt(env, 'CELLGATE_X402_FACILITATOR_TIMEOUT_MS', 10_000, 100, 120_000),
    /** HMAC key of the payment processor's deposit webhook. */
    x402DepositSecret: readSecret(env, 'CELLGATE_X402_DEPOSIT_SECRET'),
    stripe,
    /** Who carries the card rail: `local` credits without charging a card (contract §7). */
    cardProcessor: readCardProcessor(env, stripe, baseUrl),
    /** The largest single payment on any rail, in micro-USD. */
    maxPaymentMicros: readMaxPayment(env, prices),
    mpp: readMpp(env),
    /** On (default) enforces billing; off never charges (contract §7). */
    billing: readOnOff(env, 'CELLGATE_BILLING', true),
    prices,
    /** The whole request must arrive within this, and its line and headers within headersTimeoutMs; 408 otherwise. */
    requestTimeoutMs,
    headersTimeoutMs,
  };
}
