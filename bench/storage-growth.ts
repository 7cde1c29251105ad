// Issue 33 items 1–3: how much one verified organization can grow the database (and the service's
// memory) in a minute at the default limits (rate limit 50 req/s per credential, burst 100; the
// stored-resource caps of contract §2). Each attack runs for --duration seconds (60 by default)
// from one API key over --connections connections, one after another on one service, and prints
// what it stored: answers by status, database growth, growth per minute, and the service's
// resident set growth. Growth that a cap stops is a bound, not a rate: its per-minute figure is
// what the window stored, scaled, and the 409 column shows the cap answering.
//   node bench/storage-growth.ts [--postgres] [--duration 60] [--connections 4]
import { randomBytes } from 'node:crypto';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { distinctNumbers, provisionCell, request } from './support/cells.ts';
import { sizedDatabase } from './support/database-size.ts';
import { rssMb } from './support/pods.ts';

const argv = process.argv.slice(2);
const options = benchOptions(argv.includes('--duration') ? argv : [...argv, '--duration', '60']);
const connections = argv.includes('--connections') ? options.connections : 4;
const DAY = 24 * 60 * 60 * 1000;

interface Attack {
  name: string;
  /** One request of the attack (the i-th). */
  send: (i: number) => Promise<Response>;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
const randomCase = (text: string) =>
  [...text].map((c) => (Math.random() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');

await runBench(async (onExit) => {
  const db = await sizedDatabase(options.postgres, 'storage-growth', onExit);
  // The defaults: only the database is the bench's (startService turns rate limits off).
  const service = await startService({
    postgres: false,
    env: { CELLGATE_DATABASE_URL: db.url, CELLGATE_RATE_LIMIT: '50', CELLGATE_SIGNUP_RATE_LIMIT: '10' },
  });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const cell = await provisionCell(service, org);
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const pod = await request(`${service.url}/v1/pods`, {
    method: 'POST',
    headers: auth,
    body: { name: 'bench', client_id: `bench-${randomBytes(6).toString('hex')}`, cell_ids: [cell.cellId] },
    expect: 201,
  });

  const post = (path: string, body: unknown, method = 'POST', extra: Record<string, string> = {}) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', ...extra },
      body: JSON.stringify(body),
    });
  const numbers = distinctNumbers(10_000);
  // Random text, as an attacker would send: PostgreSQL compresses a repeated letter to nothing.
  const noise = (length: number) => randomBytes(length).toString('base64url').slice(0, length);
  const longBody = noise(1600);
  const mediaUrls = Array.from({ length: 10 }, (_, i) => `https://media.example.com/${i}/${noise(2000)}`);
  const unique = () => randomBytes(12).toString('hex');
  const draft = () =>
    post(`/v1/cells/${cell.cellId}/drafts`, {
      client_id: `d-${unique()}`,
      to: numbers[0],
      body: longBody,
      media_urls: mediaUrls,
    });
  let mcpId = 0;
  const attacks: Attack[] = [
    {
      name: 'contact lists of 10,000 numbers',
      send: (i) => post(`/v1/cells/${cell.cellId}/lists`, { name: `list ${i}`, numbers }),
    },
    { name: 'drafts (1,600 characters, 10 media URLs)', send: () => draft() },
    {
      name: 'drafts created and discarded',
      send: async () => {
        const created = await draft();
        if (created.status !== 201) return created;
        const { id } = (await created.json()) as { id: string };
        return fetch(`${service.url}/v1/cells/${cell.cellId}/drafts/${id}`, { method: 'DELETE', headers: auth });
      },
    },
    {
      name: 'pods',
      send: () => post('/v1/pods', { name: 'p'.repeat(100), client_id: `p-${unique()}${'c'.repeat(200)}` }),
    },
    {
      name: 'webhooks',
      send: () =>
        post('/v1/webhooks', {
          client_id: `w-${unique()}`,
          url: `https://hooks.example.com/${noise(2000)}`,
          description: noise(200),
        }),
    },
    {
      name: 'MCP tasks whose arguments fail validation',
      send: () =>
        post(
          '/mcp',
          {
            jsonrpc: '2.0',
            id: ++mcpId,
            method: 'tools/call',
            params: {
              name: 'wait_for_reply',
              arguments: { cell_id: cell.cellId, participant: 'not a number', padding: noise(200_000) },
              task: {},
            },
          },
          'POST',
          { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        ),
    },
    {
      name: 'quiet hours, case-variant time zones',
      send: () =>
        post(
          `/v1/cells/${cell.cellId}`,
          { quiet_hours: { start: '22:00', end: '07:00', time_zone: randomCase('America/Argentina/ComodRivadavia') } },
          'PATCH',
        ),
    },
    // Last: its planner writes the 10,000 scheduled messages for minutes after the request, which
    // an attack after it would count as its own growth (and wait out in the quiet check below).
    {
      name: 'broadcasts of 10,000 scheduled 29 days ahead',
      send: () =>
        post(`/v1/pods/${String(pod.id)}/messages/cycle`, {
          mode: 'broadcast',
          body: longBody,
          to: numbers,
          send_at: new Date(Date.now() + 29 * DAY).toISOString(),
        }),
    },
  ];

  process.stdout.write(
    `one organization, ${connections} connections, ${options.duration} s per attack on ${options.postgres ? 'PostgreSQL' : 'SQLite'}:\n`,
  );
  process.stdout.write(
    `${'attack'.padEnd(46)} ${'2xx'.padStart(6)} ${'409'.padStart(6)} ${'429'.padStart(6)} ${'other'.padStart(6)} ${'growth'.padStart(12)} ${'per minute'.padStart(12)} ${'RSS'.padStart(10)}\n`,
  );
  let total = 0;
  for (const attack of attacks) {
    const before = await db.size();
    const rssBefore = service.child.pid ? rssMb(service.child.pid) : NaN;
    const counts = { ok: 0, conflict: 0, limited: 0, other: 0 };
    const otherStatuses = new Set<number>();
    let next = 0;
    const until = performance.now() + options.duration * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const response = await attack.send(next++);
          await response.arrayBuffer();
          if (response.status < 300) counts.ok += 1;
          else if (response.status === 409) counts.conflict += 1;
          else if (response.status === 429) {
            counts.limited += 1;
            // As a client would: wait as told (at most what is left of the window).
            const wait = Number(response.headers.get('retry-after') ?? 1) * 1000;
            await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(0, until - performance.now()))));
          } else {
            counts.other += 1;
            otherStatuses.add(response.status);
          }
        }
      }),
    );
    // What the attack left to the workers (a broadcast's scheduled messages) counts too: wait
    // until the database stops growing (5 s without a change, 120 s at most).
    let size = await db.size();
    for (let quiet = 0, waited = 0; quiet < 5 && waited < 120; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const now = await db.size();
      quiet = now === size ? quiet + 1 : 0;
      size = now;
    }
    const growth = size - before;
    const rss = service.child.pid ? rssMb(service.child.pid) - rssBefore : NaN;
    total += growth;
    process.stdout.write(
      `${attack.name.padEnd(46)} ${String(counts.ok).padStart(6)} ${String(counts.conflict).padStart(6)} ${String(counts.limited).padStart(6)} ${String(counts.other).padStart(6)} ${mib(growth).padStart(12)} ${mib((growth * 60) / options.duration).padStart(12)} ${`${rss.toFixed(1)} MB`.padStart(10)}${otherStatuses.size > 0 ? `  (other: ${[...otherStatuses].join(', ')})` : ''}\n`,
    );
  }
  process.stdout.write(
    `in all: ${mib(total)} in ${(options.duration * attacks.length).toFixed(0)} s (${mib((total * 60) / options.duration)} per minute of each attack, summed)\n`,
  );
});
