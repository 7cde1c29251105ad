// Real server processes for multi-process tests: a database of their own in the run's
// PostgreSQL, `node src/entry.mjs serve` (npm start) children on free ports, and a JSON call helper.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, serviceEnv, serviceReadyLine, startChild, type ChildServer } from '../bench/lib.ts';
import { TEST_CREDIT, TEST_GRANT } from './harness.ts';

export type { ChildServer };

export const runDatabaseUrl = process.env.CELLGATE_TEST_DATABASE_URL ?? '';
export const onPostgres = /^postgres(ql)?:/.test(runDatabaseUrl);
export const skipUnlessPostgres = onPostgres
  ? false
  : 'needs PostgreSQL (CELLGATE_TEST_POSTGRES_URL): SQLite is one process';
export const PROCESS_ADMIN_TOKEN = `cg_adm_${randomBytes(12).toString('hex')}`;

/** A database of its own in the run's PostgreSQL, dropped by `drop()`. */
export async function createDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: runDatabaseUrl });
  await admin.connect();
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(runDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** `node src/entry.mjs serve` (npm start) on a free port, configured only through CELLGATE_* variables. */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const port = await freePort();
  return startChild({
    args: ['--no-warnings', 'src/entry.mjs', 'serve'],
    port,
    readyPath: '/health',
    readyLine: serviceReadyLine(port),
    env: { ...serviceEnv({ databaseUrl, port, adminToken: PROCESS_ADMIN_TOKEN }), ...env },
  });
}

/** A JSON request that must succeed; answers the parsed body (null when empty). */
export async function call(server: ChildServer, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Signs up through `server`, reads the code from its dev outbox, verifies, then the operator
 * grants a year of pro and credits $1,000 (as the harness's activeOrganization): it can send.
 */
export async function activeOrganizationOn(
  server: ChildServer,
  prefix: string,
): Promise<{ api_key: string; organization_id: string }> {
  const email = `${prefix}-${randomBytes(4).toString('hex')}@example.com`;
  const signUp = await call(server, 'POST', '/v1/agent/sign-up', undefined, { email });
  const outbox = await call(
    server,
    'GET',
    `/v1/admin/outbox?to=${encodeURIComponent(email)}&limit=1`,
    PROCESS_ADMIN_TOKEN,
  );
  const code = /\b(\d{6})\b/.exec(`${outbox.messages[0].subject} ${outbox.messages[0].text}`)?.[1];
  await call(server, 'POST', '/v1/agent/verify', signUp.api_key, { code });
  await call(
    server,
    'POST',
    `/v1/admin/organizations/${signUp.organization_id}/grant`,
    PROCESS_ADMIN_TOKEN,
    TEST_GRANT,
  );
  await call(
    server,
    'POST',
    `/v1/admin/organizations/${signUp.organization_id}/credits`,
    PROCESS_ADMIN_TOKEN,
    TEST_CREDIT,
  );
  return signUp;
}
