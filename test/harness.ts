// One harness for every HTTP test: a fresh database (a temporary SQLite file, or a PostgreSQL
// database of its own), a manual clock, a mail catcher and app.inject helpers.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { freePort } from '../bench/lib.ts';
import { buildApp, type AppDeps, type Services } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import type { StatementObserver } from '../src/db/observed-dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { ManualClock } from '../src/lib/clock.ts';
import type { Mail, Mailer } from '../src/lib/mailer.ts';
import type { App } from '../src/http/types.ts';

export const ADMIN_TOKEN = 'cg_adm_TestAdminToken0123456789';

/**
 * Where every test app's clock starts. CI runs the suite a second time with
 * CELLGATE_TEST_CLOCK_START far in the future, so a test or a rule that reads the real date
 * fails there (docs/decisions.md, "One clock").
 */
export const TEST_EPOCH = new Date(process.env.CELLGATE_TEST_CLOCK_START || '2026-11-21T12:00:00.000Z');
if (Number.isNaN(TEST_EPOCH.getTime()))
  throw new Error(`CELLGATE_TEST_CLOCK_START is not a date: ${process.env.CELLGATE_TEST_CLOCK_START}`);

/** An ISO timestamp `ms` after the test epoch (negative: before it). */
export const atEpoch = (ms = 0): string => new Date(TEST_EPOCH.getTime() + ms).toISOString();

export class MailCatcher implements Mailer {
  readonly sent: Mail[] = [];
  failNext = false;
  async send(mail: Mail): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('SMTP down');
    }
    this.sent.push(mail);
  }
  close(): void {}
  /** The latest 6-digit code mailed to `to`. */
  codeFor(to: string): string {
    const mail = [...this.sent].reverse().find((m) => m.to === to);
    const code = mail?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code mailed to ${to}`);
    return code;
  }
}

export interface TestDatabase {
  database: Database;
  url: string;
  drop(): Promise<void>;
}

// Kysely's migrator introspects every schema of the database; another test dropping its schema at
// that moment fails it with "schema ... does not exist". That is the harness's concurrency, not
// the product's, so the harness retries.
async function migrateBesideOtherSchemas(database: Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrateToLatest(database);
      return;
    } catch (error) {
      if (attempt >= 5 || !/schema .* does not exist|relation .* does not exist/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * A fresh, migrated database on the dialect this run tests. Under `npm test` (scripts/test.ts) it
 * is a copy of a template migrated once per run: a file copy on SQLite, `CREATE DATABASE ...
 * TEMPLATE` on PostgreSQL (a third of the time of a schema of its own plus the migrations, or less
 * on a busy machine). A test file run directly (`node --test file`) has no template and migrates.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  const pgUrl = process.env.CELLGATE_TEST_DATABASE_URL;
  if (pgUrl) {
    const template = process.env.CELLGATE_TEST_POSTGRES_TEMPLATE;
    return template ? copiedPostgres(pgUrl, template) : migratedSchema(pgUrl);
  }
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-test-'));
  const path = join(dir, 'test.db');
  const template = process.env.CELLGATE_TEST_SQLITE_TEMPLATE;
  // The template is one self-contained file (rollback journal, no -wal beside it); opening the
  // copy turns WAL on again.
  if (template) copyFileSync(template, path);
  const url = `sqlite:${path}`;
  const database = openDatabase(url);
  if (!template) await migrateToLatest(database);
  return {
    database,
    url,
    async drop() {
      await database.close();
      // The checkpointer thread may still be closing its connection (removing -wal and -shm).
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    },
  };
}

/**
 * Databases this process is done with, emptied, to hand out again with their open connection
 * pool. A copy of the template takes 60 ms to create, and DROP DATABASE waits for a checkpoint of
 * the whole server (0.4-3 s on a busy one, writing out every dirty page, which slows every other
 * test's queries); emptying one takes 5 ms. Each new connection costs the server about 30 ms of
 * CPU here, and a test app opens several: the pool is kept with its database. scripts/test.ts
 * drops the databases after the run.
 */
const emptiedDatabases: { name: string; database: Database }[] = [];

/**
 * Every row of the database deleted and its sequences restarted: as the template left it (the
 * migrations write no rows). `replica` skips the foreign keys' triggers, so the order of the
 * tables does not matter. A lock still held by another connection (a test's child process that
 * did not stop) fails it within the lock timeout, and the database is dropped instead.
 */
const EMPTY_DATABASE = sql`DO $$
DECLARE name text;
BEGIN
  SET LOCAL lock_timeout = '2s';
  SET LOCAL session_replication_role = replica;
  FOR name IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely\\_%' LOOP
    EXECUTE format('DELETE FROM %I', name);
  END LOOP;
  FOR name IN SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' LOOP
    EXECUTE format('ALTER SEQUENCE %I RESTART', name);
  END LOOP;
END $$`;

/**
 * A database of its own: one this process emptied after an earlier test, or a new copy of the
 * run's migrated template database. One that cannot be emptied is dropped in the background.
 */
async function copiedPostgres(pgUrl: string, template: string): Promise<TestDatabase> {
  let reused = emptiedDatabases.pop();
  if (!reused) {
    const name = `${template}_${randomBytes(6).toString('hex')}`;
    await adminQuery(pgUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    // Idle, the kept pool lets the process end when its last test does.
    reused = { name, database: openDatabase(url.toString(), { allowExitOnIdle: true }) };
  }
  const { name, database } = reused;
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    database,
    url: url.toString(),
    // Once only: an app closed twice must not hand its database out twice (the second holder's
    // close would empty it under the first, whose events then restart below its feed's cursor).
    async drop() {
      if (dropped) return;
      dropped = true;
      try {
        await database.db.transaction().execute((tx) => EMPTY_DATABASE.execute(tx));
        emptiedDatabases.push({ name, database });
      } catch {
        await database.close().catch(() => {});
        adminQuery(pgUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      }
    },
  };
}

async function adminQuery(pgUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Without a template: a schema of its own in the run's database, migrated. */
async function migratedSchema(pgUrl: string): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const setup = openDatabase(pgUrl, { poolSize: 1 });
  await setup.db.schema.createSchema(schema).execute();
  await setup.close();
  const database = openDatabase(pgUrl, { searchPath: schema });
  await migrateBesideOtherSchemas(database);
  return {
    database,
    url: `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      await database.close();
      const teardown = openDatabase(pgUrl, { poolSize: 1 });
      await teardown.db.schema.dropSchema(schema).cascade().execute();
      await teardown.close();
    },
  };
}

export interface TestApp {
  app: App;
  services: Services;
  database: Database;
  clock: ManualClock;
  mail: MailCatcher;
  config: Config;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  deps?: Partial<AppDeps>;
  /** Registers extra routes (e.g. a probe route for a cross-cutting hook) before app.ready(). */
  routes?: (app: App, services: Services) => void;
  /** Sees every statement the app runs before it runs (count, explain, or throw to fail it). */
  observe?: StatementObserver;
}

export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const fresh = await freshDatabase();
  // Observed: a connection of its own to the same database, closed before the database is dropped.
  const observed = options.observe && openDatabase(fresh.url, { observe: options.observe });
  const testDb = observed
    ? {
        database: observed,
        drop: async () => {
          await observed.close();
          await fresh.drop();
        },
      }
    : fresh;
  const config = loadConfig({
    CELLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    CELLGATE_BASE_URL: 'http://cellgate.test',
    CELLGATE_RATE_LIMIT: '0',
    CELLGATE_SIGNUP_RATE_LIMIT: '0',
    CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
    // Tests pay on the quick start's local card page (a public base URL defaults to none), or on
    // Stripe when they bring its keys; '' here restores the default for that base URL.
    CELLGATE_CARD_PROCESSOR: options.env?.CELLGATE_STRIPE_SECRET_KEY ? 'stripe' : 'local',
    ...options.env,
  });
  const clock = new ManualClock(TEST_EPOCH);
  const mail = new MailCatcher();
  const { app, services } = await buildApp({
    config,
    database: testDb.database,
    clock,
    mailer: mail,
    logger: false,
    workers: false,
    ...options.deps,
  });
  options.routes?.(app, services);
  await app.ready();
  return {
    app,
    services,
    database: testDb.database,
    clock,
    mail,
    config,
    async close() {
      await app.close();
      await testDb.drop();
    },
  };
}

/**
 * A test app listening on loopback, its base URL (and whatever `envOf` derives from it) naming
 * its own address, which must be known before the app is built. The port is reserved and
 * released first; another process may take it in between, so a taken port is tried again.
 */
export async function listeningTestApp(
  options: StartOptions = {},
  envOf: (base: string) => Record<string, string> = () => ({}),
): Promise<{ t: TestApp; base: string }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await startApp({ ...options, env: { CELLGATE_BASE_URL: base, ...envOf(base), ...options.env } });
    try {
      await t.app.listen({ host: '127.0.0.1', port });
      return { t, base };
    } catch (error) {
      await t.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw error;
    }
  }
}

/**
 * The test app of a suite, in the fastify/demo `build(t)` style: call it in a describe() and it
 * starts the app before the suite's tests and closes it after them (the hooks run in the order
 * they are registered: a `before` after this line finds the app started). The returned object
 * reads the started app; touching it before the suite starts throws.
 */
export function useApp(options: StartOptions = {}): TestApp {
  let started: TestApp | undefined;
  before(async () => {
    started = await startApp(options);
  });
  after(() => started?.close());
  return new Proxy({} as TestApp, {
    get(_target, key) {
      if (!started) throw new Error("useApp(): the app starts in the suite's before hook; use it in tests and hooks");
      return started[key as keyof TestApp];
    },
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export const admin = bearer(ADMIN_TOKEN);

let emailCounter = 0;
export function uniqueEmail(): string {
  emailCounter += 1;
  return `agent-${process.pid}-${emailCounter}-${randomBytes(3).toString('hex')}@example.com`;
}

/** Signs up; returns the key, organization id and the mailed code (not yet verified). */
export async function signUp(t: TestApp, email = uniqueEmail()) {
  const response = await t.app.inject({ method: 'POST', url: '/v1/agent/sign-up', payload: { email } });
  if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  const body = response.json();
  return {
    email,
    apiKey: body.api_key as string,
    organizationId: body.organization_id as string,
    code: t.mail.codeFor(email),
  };
}

/** Signs up and verifies: a verified organization (billing `inactive`) and its API key. */
export async function verifiedOrganization(t: TestApp) {
  const org = await signUp(t);
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/agent/verify',
    headers: bearer(org.apiKey),
    payload: { code: org.code },
  });
  if (response.statusCode !== 200) throw new Error(`verify failed: ${response.statusCode} ${response.body}`);
  return { ...org, headers: bearer(org.apiKey) };
}

/** What the operator gives each test organization, so suites other than billing's never meet a 402. */
export const TEST_GRANT = { tier: 'pro', months: 12, reason: 'test harness' };
export const TEST_CREDIT = { amount_usd: '1000.00', reason: 'test harness' };

/**
 * A verified organization that can create cells and send: with billing on, the operator grants it
 * a year of the pro tier (10 cells) and credits $1,000 to its prepaid balance.
 */
export async function activeOrganization(t: TestApp) {
  const org = await verifiedOrganization(t);
  if (t.config.billing) {
    for (const [action, payload] of [
      ['grant', TEST_GRANT],
      ['credits', TEST_CREDIT],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/admin/organizations/${org.organizationId}/${action}`,
        headers: admin,
        payload,
      });
      if (response.statusCode !== 200) throw new Error(`${action} failed: ${response.statusCode} ${response.body}`);
    }
  }
  return org;
}

/** Asserts a problem+json error and returns its body. */
/* eslint-disable @typescript-eslint/no-explicit-any -- mirrors light-my-request's Response.json(): any */
export function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json(): any; body: string },
  status: number,
  code: string,
) {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  if (response.statusCode !== status)
    throw new Error(`expected ${status} ${code}, got ${response.statusCode} ${response.body}`);
  const type = String(response.headers['content-type']);
  if (!type.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${type}`);
  const body = response.json();
  if (body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${response.body}`);
  if (body.status !== status || typeof body.request_id !== 'string' || typeof body.detail !== 'string') {
    throw new Error(`malformed problem body: ${response.body}`);
  }
  return body;
}
