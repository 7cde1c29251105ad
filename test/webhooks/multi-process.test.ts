// Two real server processes on one PostgreSQL database and one receiver: every event is delivered
// exactly once, each delivery attempted by exactly one of the processes, and both take part.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { startReceiver, type Receiver } from './receiver.ts';

const runUrl = process.env.CELLGATE_TEST_DATABASE_URL ?? '';
const postgres = /^postgres(ql)?:/.test(runUrl);
const MAIN = join(import.meta.dirname, '../../src/main.ts');
const ADMIN_TOKEN = `cg_adm_${randomBytes(12).toString('hex')}`;
const EVENTS = 200;

interface Server {
  url: string;
  child: ChildProcess;
  stderr(): string;
}

async function startServer(databaseUrl: string): Promise<Server> {
  const child = spawn(process.execPath, ['--no-warnings', MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH,
      CELLGATE_DATABASE_URL: databaseUrl,
      CELLGATE_HOST: '127.0.0.1',
      CELLGATE_PORT: '0',
      CELLGATE_ADMIN_TOKEN: ADMIN_TOKEN,
      CELLGATE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      CELLGATE_RATE_LIMIT: '0',
      CELLGATE_SIGNUP_RATE_LIMIT: '0',
      CELLGATE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stderr?.on('data', collect);
  // Port 0: the listening address comes from Fastify's "Server listening at" log line.
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      collect(chunk);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return { url, child, stderr: () => output };
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

async function call(server: Server, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

describe('webhook delivery across two processes on one PostgreSQL database', { skip: postgres ? false : 'needs PostgreSQL (CELLGATE_TEST_POSTGRES_URL): SQLite is one process' }, () => {
  let admin: pg.Client;
  let databaseUrl: string;
  let databaseName: string;
  let servers: Server[] = [];
  let receiver: Receiver;

  before(async () => {
    admin = new pg.Client({ connectionString: runUrl });
    await admin.connect();
    databaseName = `cellgate_mp_${process.pid}_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${databaseName}`);
    const url = new URL(runUrl);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
    receiver = await startReceiver();
    servers = [await startServer(databaseUrl)];
    servers.push(await startServer(databaseUrl));
  });

  after(async () => {
    await Promise.all(servers.map(stopServer));
    await receiver?.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  });

  it('delivers every event exactly once, attempted by one process each', async () => {
    const [a, b] = servers;
    const email = `mp-${randomBytes(4).toString('hex')}@example.com`;
    const signUp = await call(a, 'POST', '/v1/agent/sign-up', undefined, { email });
    const outbox = await call(b, 'GET', `/v1/admin/outbox?to=${encodeURIComponent(email)}&limit=1`, ADMIN_TOKEN);
    const code = /\b(\d{6})\b/.exec(`${outbox.messages[0].subject} ${outbox.messages[0].text}`)?.[1];
    await call(b, 'POST', '/v1/agent/verify', signUp.api_key, { code });
    const key = signUp.api_key as string;

    const webhook = await call(b, 'POST', '/v1/webhooks', key, { client_id: 'mp', url: receiver.url, event_types: ['cell.*'] });
    const cell = await call(a, 'POST', '/v1/cells', key, { display_name: 'line 0' });
    // cell.created, then one cell.updated per rename, half through each process, 10 at a time.
    for (let i = 1; i < EVENTS; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, EVENTS - i) }, (_, j) =>
          call(servers[(i + j) % 2], 'PATCH', `/v1/cells/${cell.id}`, key, { display_name: `line ${i + j}` }),
        ),
      );
    }

    const deadline = Date.now() + 20_000;
    while (receiver.requests.length < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Let any duplicate show up before counting.
    await new Promise((r) => setTimeout(r, 500));

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const events = (await db.query<{ id: string }>(`select id from events where type like 'cell.%'`)).rows.map((r) => r.id);
      assert.equal(events.length, EVENTS);
      const received = receiver.requests.map((r) => String(r.headers['webhook-id']));
      assert.equal(received.length, EVENTS, 'one request per event');
      assert.deepEqual([...new Set(received)].sort(), [...events].sort(), 'every event, none twice');

      const deliveries = await db.query<{ status: string; attempts: number; n: number }>(
        `select d.status, d.attempts, count(a.id)::int as n from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
         where d.webhook_id = $1 group by d.id, d.status, d.attempts`,
        [webhook.id],
      );
      assert.equal(deliveries.rows.length, EVENTS);
      assert.ok(deliveries.rows.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.n === 1), 'one attempt per delivery');
      const byProcess = await db.query<{ attempted_by: string; n: number }>('select attempted_by, count(*)::int as n from webhook_attempts group by attempted_by');
      assert.equal(byProcess.rows.length, 2, `both processes delivered: ${JSON.stringify(byProcess.rows)}`);
    } finally {
      await db.end();
    }
  });
});
