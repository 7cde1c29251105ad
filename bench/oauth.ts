// Issue 13: GET /v1/auth/whoami with an OAuth access token against the same with an API key,
// in the same run (target: within 10% in req/s), and the token endpoint's p50 (refresh_token
// grants one after another, each rotating the refresh token).
//   node bench/oauth.ts [--postgres] [--duration 10] [--connections 50] [--refreshes 300]
import { createHash, randomBytes } from 'node:crypto';
import { benchOptions, load, printResults, runBench, signUpVerified, startService, type Service } from './lib.ts';
import { percentile } from './support/cells.ts';

const TARGET = 0.9;
const REDIRECT = 'http://127.0.0.1:9/callback';
const argv = process.argv.slice(2);
const at = argv.indexOf('--refreshes');
const refreshes = at >= 0 ? Number(argv.splice(at, 2)[1]) : 300;
const options = benchOptions(argv);

async function json(response: Response) {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, string>;
}

/** A public client, authorized by the API key's consent; its first access and refresh tokens. */
async function tokens(service: Service, apiKey: string) {
  const client = await json(await fetch(`${service.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'bench' }),
  }));
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'bench', scope: 'cells:read' });
  const authorize = await fetch(`${service.url}/oauth/authorize?${query}`, { redirect: 'manual' });
  const requestId = new URL(String(authorize.headers.get('location'))).searchParams.get('request') ?? '';
  const consent = await json(await fetch(`${service.url}/v1/oauth/consent`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ request_id: requestId, approve: true }),
  }));
  const code = new URL(consent.redirect_url).searchParams.get('code') ?? '';
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
  const issued = await json(await fetch(`${service.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }));
  return { clientId: client.client_id, access: issued.access_token, refresh: issued.refresh_token };
}

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile, env: { CELLGATE_RATE_LIMIT: '0' } });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const issued = await tokens(service, org.apiKey);

  const url = `${service.url}/v1/auth/whoami`;
  const withKey = await load('whoami, API key', { url, headers: { authorization: `Bearer ${org.apiKey}` }, server: service }, options);
  const withToken = await load('whoami, OAuth access token', { url, headers: { authorization: `Bearer ${issued.access}` }, server: service }, options);
  printResults(`whoami by credential on ${service.database}: ${options.duration} s, ${options.connections} connections`, [withKey, withToken]);
  const ratio = withToken.requestsPerSecond / withKey.requestsPerSecond;
  process.stdout.write(`ratio token/key req/s: ${ratio.toFixed(2)} (target >= ${TARGET}) ${ratio >= TARGET ? 'MET' : 'NOT MET'}\n`);

  let refresh = issued.refresh;
  const times: number[] = [];
  for (let i = 0; i < refreshes; i += 1) {
    const started = performance.now();
    const next = await json(await fetch(`${service.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: issued.clientId }),
    }));
    times.push(performance.now() - started);
    refresh = next.refresh_token;
  }
  process.stdout.write(`token endpoint (refresh_token grant, rotation), ${refreshes} one after another: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms\n`);
});
