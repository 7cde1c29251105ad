// Issue 13: GET /v1/auth/whoami with an OAuth access token against the same with an API key,
// in the same run (target: within 10% in req/s), and the token endpoint's p50 (refresh_token
// grants one after another, each rotating the refresh token).
//   node bench/oauth.ts [--postgres] [--duration 10] [--connections 50] [--refreshes 300]
import { benchOptions, load, printResults, runBench, signUpVerified, startService } from './lib.ts';
import { percentile } from './support/cells.ts';
import { jsonOf, oauthTokens } from '../test/support/oauth-flow.ts';

const TARGET = 0.9;
const argv = process.argv.slice(2);
const at = argv.indexOf('--refreshes');
const refreshes = at >= 0 ? Number(argv.splice(at, 2)[1]) : 300;
const options = benchOptions(argv);

await runBench(async (onExit) => {
  const service = await startService({
    postgres: options.postgres,
    profile: options.profile,
    env: { CELLGATE_RATE_LIMIT: '0' },
  });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const issued = await oauthTokens(service.url, org.apiKey, 'cells:read');

  const url = `${service.url}/v1/auth/whoami`;
  const withKey = await load(
    'whoami, API key',
    { url, headers: { authorization: `Bearer ${org.apiKey}` }, server: service },
    options,
  );
  const withToken = await load(
    'whoami, OAuth access token',
    { url, headers: { authorization: `Bearer ${issued.access}` }, server: service },
    options,
  );
  printResults(
    `whoami by credential on ${service.database}: ${options.duration} s, ${options.connections} connections`,
    [withKey, withToken],
  );
  const ratio = withToken.requestsPerSecond / withKey.requestsPerSecond;
  process.stdout.write(
    `ratio token/key req/s: ${ratio.toFixed(2)} (target >= ${TARGET}) ${ratio >= TARGET ? 'MET' : 'NOT MET'}\n`,
  );

  let refresh = issued.refresh;
  const times: number[] = [];
  for (let i = 0; i < refreshes; i += 1) {
    const started = performance.now();
    const next = await jsonOf(
      await fetch(`${service.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: issued.clientId }),
      }),
    );
    times.push(performance.now() - started);
    refresh = next.refresh_token;
  }
  process.stdout.write(
    `token endpoint (refresh_token grant, rotation), ${refreshes} one after another: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms\n`,
  );
});
