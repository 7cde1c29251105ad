// Does the message list stay flat as a cell's history grows? GET /v1/cells/{id}/messages?limit=50
// (the newest page) with 10,000 and then 1,000,000 stored messages in the cell. The rows are
// bulk-inserted through Kysely straight into the service's database (copies of one real message
// sent through HTTP), then the list is measured through HTTP: one request at a time (the p50 the
// target is about), and under load with autocannon. Target: p50 ratio 1M/10k <= 1.5.
//   node bench/list-scale.ts [--postgres] [--duration 10] [--connections 50] [--warmup 2] [--profile dir]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.ts';
import { ulid } from 'ulid';
import type { MessagesTable } from '../src/modules/messages/tables.ts';
import { benchOptions, load, printResults, runBench, signUpVerified, startService } from './lib.ts';
import { benchPhoneNumber, percentile, provisionCell, request } from './support/cells.ts';

const TARGET_RATIO = 1.5;
const SMALL = 10_000;
const LARGE = 1_000_000;
/** Rows per INSERT: 1,000 rows x ~28 columns stays under both dialects' bound-parameter limits. */
const BATCH = 1_000;
const SEQUENTIAL = 1_000;
const options = benchOptions();

await runBench(async (onExit) => {
  const databaseUrl = await scratchDatabase(options.postgres, onExit);
  const service = await startService({
    postgres: options.postgres,
    profile: options.profile,
    env: { CELLGATE_DATABASE_URL: databaseUrl },
  });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const cell = await provisionCell(service, org);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const template = await request(`${service.url}/v1/cells/${cell.cellId}/messages/send`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': randomUUID() },
    body: { to: benchPhoneNumber(), body: 'The message every stored row is a copy of.' },
    expect: 202,
  });

  const database = openDatabase(databaseUrl, { poolSize: 2 });
  onExit(() => database.close());
  const row = await database.db
    .selectFrom('messages')
    .selectAll()
    .where('id', '=', String(template.id))
    .executeTakeFirstOrThrow();

  const target = { url: `${service.url}/v1/cells/${cell.cellId}/messages?limit=50`, headers: auth, server: service };
  let stored = 1;
  const results = [];
  const sequential: number[] = [];
  for (const size of [SMALL, LARGE]) {
    const started = Date.now();
    stored += await insertCopies(database, row, size - stored, stored);
    process.stdout.write(
      `stored ${size.toLocaleString('en-US')} messages in the cell (+${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    // PostgreSQL: what autovacuum would have done by now; without it the planner sees an empty table.
    if (database.dialect === 'postgres') await sql`analyze messages`.execute(database.db);
    const page = await request(target.url, { headers: auth });
    if ((page.messages as unknown[]).length !== 50)
      throw new Error(`the list answered ${(page.messages as unknown[]).length} messages, not 50`);
    // The first round also warms the freshly started service up (JIT, caches): one unmeasured run more.
    if (size === SMALL) await load('warm-up', target, options);
    results.push(await load(`GET messages?limit=50 @ ${size.toLocaleString('en-US')}`, target, options));
    sequential.push(await sequentialP50(target.url, auth));
  }

  printResults(
    `newest page of a cell's messages on ${service.database}: ${options.duration} s, ${options.connections} connections, ${options.warmup} s warm-up each`,
    results,
  );
  // The headline is the latency of one request on an otherwise idle service; under 50 connections
  // the p50 is mostly queueing, which a busy machine distorts.
  const ratio = sequential[1] / sequential[0];
  process.stdout.write(
    `one request at a time (${SEQUENTIAL} each): p50 ${sequential[0].toFixed(2)} ms @ 10,000, ${sequential[1].toFixed(2)} ms @ 1,000,000\n`,
  );
  process.stdout.write(
    `p50 ratio 1M/10k: ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}) ${ratio <= TARGET_RATIO ? 'MET' : 'NOT MET'}\n`,
  );
  process.stdout.write(
    `p50 ratio 1M/10k under ${options.connections} connections: ${(results[1].p50 / Math.max(results[0].p50, 0.001)).toFixed(2)}\n`,
  );
  if (results[0].serverCpuUs && results[1].serverCpuUs) {
    // Less sensitive to other load on the machine than latency: server CPU spent per request.
    process.stdout.write(
      `CPU-per-request ratio 1M/10k: ${(results[1].serverCpuUs / results[0].serverCpuUs).toFixed(2)}\n`,
    );
  }
});

/** p50 in ms of SEQUENTIAL requests made one after another, after a short unmeasured run. */
async function sequentialP50(url: string, headers: Record<string, string>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < SEQUENTIAL + 100; i += 1) {
    const started = performance.now();
    await request(url, { headers });
    if (i >= 100) samples.push(performance.now() - started);
  }
  return percentile(samples, 50);
}

/**
 * Inserts `count` copies of `row`, older than it (ids and timestamps in the past, one second apart),
 * every fourth one inbound. Returns the number inserted.
 */
async function insertCopies(database: Database, row: MessagesTable, count: number, offset: number): Promise<number> {
  const newest = Date.parse(row.created_at) - 1000;
  for (let done = 0; done < count; done += BATCH) {
    const rows: MessagesTable[] = [];
    for (let i = done; i < Math.min(count, done + BATCH); i += 1) {
      const n = offset + i;
      const at = new Date(newest - n * 1000).toISOString();
      const inbound = n % 4 === 0;
      rows.push({
        ...row,
        id: `msg_${ulid(newest - n * 1000).toLowerCase()}`, // back in time, so not the monotonic newId
        body: `Stored message ${n}`,
        ...(inbound
          ? {
              direction: 'inbound',
              from_number: row.to_number,
              to_number: row.from_number,
              status: 'received',
              device_message_id: `bench-${n}`,
              received_at: at,
              sent_at: null,
              delivered_at: null,
            }
          : {
              direction: 'outbound',
              status: 'delivered',
              sent_at: at,
              delivered_at: at,
              received_at: null,
              device_message_id: null,
            }),
        device_id: null,
        lease_expires_at: null,
        expires_at: null,
        created_at: at,
        updated_at: at,
      });
    }
    await database.db.insertInto('messages').values(rows).execute();
  }
  return count;
}

/** A database of the bench's own, so it can write into it: a temporary SQLite file or a new PostgreSQL database. */
async function scratchDatabase(postgres: boolean, onExit: (cleanup: () => Promise<void>) => void): Promise<string> {
  if (!postgres) {
    const dir = mkdtempSync(join(tmpdir(), 'cellgate-bench-list-'));
    onExit(async () => rmSync(dir, { recursive: true, force: true }));
    return `sqlite:${join(dir, 'list.db')}`;
  }
  const adminUrl = process.env.CELLGATE_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `cellgate_bench_list_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  onExit(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
