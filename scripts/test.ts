// `npm test`: every *.test.ts under src/ and test/ on the embedded SQLite default, or on
// PostgreSQL when CELLGATE_TEST_POSTGRES_URL is set. The migrations run once per run, into a
// template that each test database is copied from (test/harness.ts): on SQLite a file whose path
// goes to the test processes in CELLGATE_TEST_SQLITE_TEMPLATE; on PostgreSQL a template database
// (CELLGATE_TEST_POSTGRES_TEMPLATE) beside the run's database, which tests use for anything else.
// Templates and databases are removed afterwards. Test processes share a compile cache
// (NODE_COMPILE_CACHE in the temporary directory, kept between runs; Node checks each entry
// against its source): each process skips most of stripping and compiling the TypeScript it loads.
import { spawn } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
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
/**
 * A browser test (`*.browser.test.ts`) checks what Chromium shows: layout, accessibility, a walk
 * through the forms. The queries behind each page run on PostgreSQL in the console's HTTP tests,
 * and Chromium is a third of a run's CPU, so the PostgreSQL run leaves these to the SQLite runs.
 */
const isBrowserTest = (file: string) => file.endsWith('.browser.test.ts');
const allFiles = () => globSync(['src/**/*.test.ts', 'test/**/*.test.ts']).sort();
const isDatabaseIndependent = (file: string) => readFileSync(file, 'utf8').startsWith(DATABASE_INDEPENDENT);

const clockStart = process.env.CELLGATE_TEST_CLOCK_START;
/**
 * The run with the test clock far ahead (CELLGATE_TEST_CLOCK_START) looks for code that reads the
 * real date instead of the injected clock. These files cannot show it: the browser walks, the
 * command line and the simulator (processes of their own, on the real clock by design) and the
 * OpenAPI document, the reference and the README (no date in them). A lint rule
 * (eslint.config.js) keeps the real date out of `src/` but for the clock and the CLI, so what
 * they would exercise is covered by the files that stay.
 */
const readsNoTestClock = (file: string) =>
  isBrowserTest(file) ||
  file.startsWith('src/cli/') ||
  file.startsWith('test/simulator/') ||
  file === 'test/readme.test.ts' ||
  /^src\/modules\/(system\/openapi|docs\/)/.test(file);

function testFiles(): string[] {
  if (extraArgs.length > 0) return extraArgs;
  const files = allFiles();
  const leftOut = (reason: string, kept: string[]) => {
    process.stdout.write(`${files.length - kept.length} ${reason}\n`);
    return kept;
  };
  if (clockStart)
    return leftOut(
      "browser, command-line, simulator, OpenAPI and reference test files left to the run on today's clock",
      files.filter((file) => !readsNoTestClock(file)),
    );
  if (!adminUrl) return files;
  return leftOut(
    'database-independent and browser test files left to the SQLite runs',
    files.filter((file) => !isDatabaseIndependent(file) && !isBrowserTest(file)),
  );
}
const files = testFiles();

type TestEnv = Record<string, string>;

/**
 * Test files share processes: each group of files runs in one `node --test --test-isolation=none`
 * process, so the app's modules load once per group instead of once per file (~0.7 CPU-s each).
 * Groups run side by side, as many as CELLGATE_TEST_CONCURRENCY (4 on this 2-core machine: many
 * tests wait on sockets and timers), balanced by each file's duration in the last run.
 */
const concurrency = Number(process.env.CELLGATE_TEST_CONCURRENCY) || 4;
/**
 * A test file that has this line near its top runs in a process of its own: it changes what the
 * process shares (globals, process listeners) in a way other files must not see.
 */
const ISOLATED = '// @test-isolated';
const isIsolated = (file: string) => readFileSync(file, 'utf8').slice(0, 2000).includes(ISOLATED);
/**
 * Seconds per file of the last run on the same database (scripts/test-durations.ts): a file's
 * time on PostgreSQL is not its time on SQLite. A seed per database is committed for fresh clones
 * (CI's), whose groups would otherwise end up to 100 s apart.
 */
const databaseName = adminUrl ? 'postgres' : 'sqlite';
const lastDurations = join(tmpdir(), `cellgate-test-durations-${databaseName}.json`);
const seedDurations = join(import.meta.dirname, `test-durations.${databaseName}.json`);

function readDurations(): Record<string, number> {
  for (const path of [lastDurations, seedDurations]) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
    } catch {
      // None yet: try the next.
    }
  }
  return {};
}

/** Longest first, each into the group with the least time so far (isolated files: a group each). */
function groupsOf(testFiles: string[], durations: Record<string, number>): { files: string[]; seconds: number }[] {
  const known = Object.values(durations);
  const typical = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 1;
  const secondsOf = (file: string) => durations[file] ?? typical;
  const shared = Array.from({ length: Math.min(concurrency, testFiles.length) }, () => ({
    files: [] as string[],
    seconds: 0,
  }));
  const isolated: { files: string[]; seconds: number }[] = [];
  for (const file of [...testFiles].sort((a, b) => secondsOf(b) - secondsOf(a))) {
    if (isIsolated(file)) {
      isolated.push({ files: [file], seconds: secondsOf(file) });
      continue;
    }
    const group = shared.reduce((least, next) => (next.seconds < least.seconds ? next : least));
    group.files.push(file);
    group.seconds += secondsOf(file);
  }
  return [...shared.filter((group) => group.files.length > 0), ...isolated].sort((a, b) => b.seconds - a.seconds);
}

interface GroupResult {
  status: number;
  output: string;
  durations: Record<string, number>;
}

/** Runs one group in one process; its spec output is printed whole when it ends, so groups do not interleave. */
function runGroup(files: string[], env: NodeJS.ProcessEnv, dir: string, index: number): Promise<GroupResult> {
  const durationsFile = join(dir, `durations-${index}.json`);
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-isolation=none',
      // Generous: a browser walk takes 15 s alone and several times that on a loaded 2-core runner.
      '--test-timeout=240000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(import.meta.dirname, 'test-durations.ts')}`,
      `--test-reporter-destination=${durationsFile}`,
      ...files,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      let durations: Record<string, number> = {};
      try {
        const absolute = JSON.parse(readFileSync(durationsFile, 'utf8')) as Record<string, number>;
        durations = Object.fromEntries(Object.entries(absolute).map(([file, s]) => [relative('.', file), s]));
      } catch {
        // A group that crashed wrote none.
      }
      resolve({ status: code ?? 1, output: Buffer.concat(chunks).toString(), durations });
    });
  });
}

/** A migrated SQLite file: migrated in WAL mode, then written out whole by VACUUM INTO (no -wal). */
async function withSqliteTemplate<T>(run: (env: TestEnv) => Promise<T>): Promise<T> {
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
    return await run({ CELLGATE_TEST_DATABASE_URL: '', CELLGATE_TEST_SQLITE_TEMPLATE: template });
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }
}

/** The run's database and a migrated template database; both, and every copy left, dropped after. */
async function withPostgres<T>(url: string, run: (env: TestEnv) => Promise<T>): Promise<T> {
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
    return await run({ CELLGATE_TEST_DATABASE_URL: urlOf(name), CELLGATE_TEST_POSTGRES_TEMPLATE: template });
  } finally {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [name, `${name}\\_%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
  }
}

async function runTests(env: TestEnv): Promise<number> {
  const clock = clockStart ? `, test clock from ${clockStart}` : '';
  const durations = readDurations();
  const groups = groupsOf(files, durations);
  process.stdout.write(
    `tests on ${adminUrl ? 'PostgreSQL' : 'SQLite'}${clock}: ${files.length} files in ${groups.length} processes, ${Math.min(concurrency, groups.length)} at a time\n`,
  );
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-test-run-'));
  const childEnv = { NODE_COMPILE_CACHE: join(tmpdir(), 'cellgate-compile-cache'), ...process.env, ...env };
  const results: GroupResult[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < groups.length; index = next++) {
      const groupStarted = performance.now();
      const result = await runGroup(groups[index].files, childEnv, dir, index);
      process.stdout.write(result.output);
      // How well the groups were balanced: each should end near the run's end.
      process.stdout.write(
        `\ntest process ${index + 1} of ${groups.length}: ${groups[index].files.length} files, ${((performance.now() - groupStarted) / 1000).toFixed(0)} s (planned ${groups[index].seconds.toFixed(0)} s of file time)\n`,
      );
      // A failure may come from a file run before it in the same process: name them, in order.
      if (result.status !== 0)
        process.stdout.write(
          `\nthat process ran, in order: node --test --test-isolation=none ${groups[index].files.join(' ')}\n`,
        );
      results.push(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const count = (label: string) =>
    results.reduce((sum, r) => sum + Number(r.output.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0), 0);
  process.stdout.write(
    `tests on ${adminUrl ? 'PostgreSQL' : 'SQLite'}${clock}: ${seconds} s, ${count('tests')} tests, ${count('pass')} passed, ${count('fail')} failed, ${count('cancelled')} cancelled\n`,
  );
  // The failures' details again, last, where a reader of the log's tail finds them.
  for (const { output } of results.filter((r) => r.status !== 0)) {
    const failures = output.indexOf('✖ failing tests:');
    if (failures >= 0) process.stdout.write(`\n${output.slice(failures, failures + 12_000)}\n`);
  }
  writeFileSync(
    lastDurations,
    JSON.stringify({ ...durations, ...Object.assign({}, ...results.map((r) => r.durations)) }),
  );
  return results.every((r) => r.status === 0) && results.length === groups.length ? 0 : 1;
}

const status = adminUrl ? await withPostgres(adminUrl, runTests) : await withSqliteTemplate(runTests);
process.exit(status);
