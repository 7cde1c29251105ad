// `npm test`: every *.test.ts under src/ and test/ on the embedded SQLite default, or on
// PostgreSQL when CELLGATE_TEST_POSTGRES_URL is set. The migrations run once per run, into a
// template that each test database is copied from (test/harness.ts): on SQLite a file whose path
// goes to the test processes in CELLGATE_TEST_SQLITE_TEMPLATE; on PostgreSQL a template database
// (CELLGATE_TEST_POSTGRES_TEMPLATE) beside the run's database, which tests use for anything else.
// Templates and databases are removed afterwards. Test processes share a compile cache
// (NODE_COMPILE_CACHE in the temporary directory, kept between runs; Node checks each entry
// against its source): each process skips most of stripping and compiling the TypeScript it loads.
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

const adminUrl = process.env.CELLGATE_TEST_POSTGRES_URL;
const extraArgs = process.argv.slice(2);
/**
 * A test file that starts with this line would run the same on the PostgreSQL run as on SQLite:
 * it proves nothing about the database (pure functions, the OpenAPI document, the docs) or it
 * brings its own SQLite files (the command line, the README). The PostgreSQL run leaves it to the
 * SQLite runs, which run every file. Named files always run.
 */
const DATABASE_INDEPENDENT = '// @database-independent';
const allFiles = () => globSync(['src/**/*.test.ts', 'test/**/*.test.ts']).sort();
const isDatabaseIndependent = (file: string) => readFileSync(file, 'utf8').startsWith(DATABASE_INDEPENDENT);

function testFiles(): string[] {
  if (extraArgs.length > 0) return extraArgs;
  if (!adminUrl) return allFiles();
  const files = allFiles();
  const kept = files.filter((file) => !isDatabaseIndependent(file));
  process.stdout.write(`${files.length - kept.length} database-independent test files left to the SQLite runs\n`);
  return kept;
}
const files = testFiles();

type TestEnv = Record<string, string>;

/** Test files run at once: 4 on this 2-core machine (many tests wait on sockets and timers). */
const concurrency = Number(process.env.CELLGATE_TEST_CONCURRENCY) || 4;

/** A migrated SQLite file: migrated in WAL mode, then written out whole by VACUUM INTO (no -wal). */
async function withSqliteTemplate<T>(run: (env: TestEnv) => T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-template-'));
  try {
    const template = join(dir, 'template.db');
    const database = openDatabase(`sqlite:${join(dir, 'migrate.db')}`);
    try {
      await migrateToLatest(database);
      await sql`VACUUM INTO ${template}`.execute(database.db);
    } finally {
      await database.close();
    }
    return run({ CELLGATE_TEST_DATABASE_URL: '', CELLGATE_TEST_SQLITE_TEMPLATE: template });
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }
}

/** The run's database and a migrated template database; both, and every copy left, dropped after. */
async function withPostgres<T>(url: string, run: (env: TestEnv) => T): Promise<T> {
  const name = `cellgate_test_${process.pid}_${Date.now()}`;
  const template = `${name}_tpl`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const urlOf = (database: string) => {
    const result = new URL(url);
    result.pathname = `/${database}`;
    return result.toString();
  };
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.query(`CREATE DATABASE ${template}`);
    const database = openDatabase(urlOf(template), { poolSize: 1 });
    try {
      await migrateToLatest(database);
    } finally {
      await database.close();
    }
    return run({ CELLGATE_TEST_DATABASE_URL: urlOf(name), CELLGATE_TEST_POSTGRES_TEMPLATE: template });
  } finally {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [name, `${name}\\_%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
  }
}

function runTests(env: TestEnv): number {
  const clock = process.env.CELLGATE_TEST_CLOCK_START
    ? `, test clock from ${process.env.CELLGATE_TEST_CLOCK_START}`
    : '';
  process.stdout.write(`tests on ${adminUrl ? 'PostgreSQL' : 'SQLite'}${clock}\n`);
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=60000', ...files],
    {
      stdio: 'inherit',
      env: { NODE_COMPILE_CACHE: join(tmpdir(), 'cellgate-compile-cache'), ...process.env, ...env },
    },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stdout.write(`tests on ${adminUrl ? 'PostgreSQL' : 'SQLite'}${clock}: ${seconds} s\n`);
  return result.status ?? 1;
}

const status = adminUrl ? await withPostgres(adminUrl, runTests) : await withSqliteTemplate(runTests);
process.exit(status);
