// `npm test`: every *.test.ts under src/ and test/ on the embedded SQLite default, or on
// PostgreSQL when CELLGATE_TEST_POSTGRES_URL is set. For PostgreSQL, one database is created for
// the run and dropped afterwards; each test app inside it gets a schema of its own.
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const adminUrl = process.env.CELLGATE_TEST_POSTGRES_URL;
const extraArgs = process.argv.slice(2);
const files = extraArgs.length > 0 ? extraArgs : ['src/**/*.test.ts', 'test/**/*.test.ts'];

async function withDatabase<T>(run: (url: string | undefined) => T): Promise<T> {
  if (!adminUrl) return run(undefined);
  const name = `cellgate_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const status = await withDatabase((databaseUrl) => {
  const clock = process.env.CELLGATE_TEST_CLOCK_START ? `, test clock from ${process.env.CELLGATE_TEST_CLOCK_START}` : '';
  process.stdout.write(`tests on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}${clock}\n`);
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-concurrency=4', '--test-timeout=60000', ...files],
    { stdio: 'inherit', env: { ...process.env, CELLGATE_TEST_DATABASE_URL: databaseUrl ?? '' } },
  );
  return result.status ?? 1;
});
process.exit(status);
