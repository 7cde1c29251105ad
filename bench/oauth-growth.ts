// Issue 22 item 8: how much one client address can grow the database through the two endpoints
// anyone may write through, /oauth/register and /oauth/authorize, at the default per-address
// limits. It sends as fast as it can for --duration seconds (60 by default), every registration
// with 16 KB of metadata and every authorization request with the largest state and redirect URI,
// and prints the database growth (target: at most 1 MB).
//   node bench/oauth-growth.ts [--postgres] [--duration 60] [--connections 4]
import { createHash, randomBytes } from 'node:crypto';
import { benchOptions, runBench, startService } from './lib.ts';
import { sizedDatabase } from './support/database-size.ts';

const TARGET_BYTES = 1024 * 1024;
const argv = process.argv.slice(2);
const options = benchOptions(argv.includes('--duration') ? argv : [...argv, '--duration', '60']);
const connections = argv.includes('--connections') ? options.connections : 4;

await runBench(async (onExit) => {
  const db = await sizedDatabase(options.postgres, 'oauth-growth', onExit);
  const service = await startService({ postgres: false, env: { CELLGATE_DATABASE_URL: db.url } });
  onExit(() => service.stop());

  // The longest redirect URI the rules take, registered once for the authorization requests.
  const redirect = `https://app.example.com/${'r'.repeat(2000)}`;
  const metadata = (padding: number) => ({
    client_name: 'Growth bench',
    redirect_uris: [redirect],
    token_endpoint_auth_method: 'none',
    software_id: 'x'.repeat(padding),
  });
  const base = Buffer.byteLength(JSON.stringify(metadata(0)));
  const body = JSON.stringify(metadata(16 * 1024 - base));
  const register = () =>
    fetch(`${service.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const first = await register();
  if (first.status !== 201) throw new Error(`registration failed: ${first.status} ${await first.text()}`);
  const { client_id: clientId } = (await first.json()) as { client_id: string };
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
    state: 's'.repeat(2048),
  });
  const authorize = () => fetch(`${service.url}/oauth/authorize?${query}`, { redirect: 'manual' });

  const before = await db.size();
  const counts = { registered: 1, registerLimited: 0, authorized: 0, authorizeLimited: 0, other: 0 };
  const until = performance.now() + options.duration * 1000;
  const worker = async (
    send: () => Promise<Response>,
    ok: number,
    done: 'registered' | 'authorized',
    limited: 'registerLimited' | 'authorizeLimited',
  ) => {
    while (performance.now() < until) {
      const response = await send();
      await response.arrayBuffer();
      if (response.status === ok) counts[done] += 1;
      else if (response.status === 429) counts[limited] += 1;
      else counts.other += 1;
    }
  };
  const workers = [];
  for (let i = 0; i < connections; i += 1) {
    workers.push(
      worker(register, 201, 'registered', 'registerLimited'),
      worker(authorize, 303, 'authorized', 'authorizeLimited'),
    );
  }
  await Promise.all(workers);
  const after = await db.size();
  const growth = after - before;

  process.stdout.write(
    `one address for ${options.duration} s on ${options.postgres ? 'PostgreSQL' : 'SQLite'}, ${connections} connections per endpoint:\n`,
  );
  process.stdout.write(
    `  /oauth/register:  ${counts.registered} registered (16 KB each), ${counts.registerLimited} answered 429\n`,
  );
  process.stdout.write(
    `  /oauth/authorize: ${counts.authorized} requests stored, ${counts.authorizeLimited} answered 429\n`,
  );
  if (counts.other > 0) process.stdout.write(`  ${counts.other} other answers\n`);
  process.stdout.write(
    `database growth: ${(growth / 1024).toFixed(0)} KiB (target <= ${TARGET_BYTES / 1024} KiB) ${growth <= TARGET_BYTES ? 'MET' : 'NOT MET'}\n`,
  );
});
