// Issue 2: authenticated GET /v1/auth/whoami throughput against a bare Fastify JSON route,
// both on loopback, measured in the same run. Target: ratio >= 0.6.
//   npm run bench:whoami [-- --postgres] [--duration 10] [--connections 50] [--warmup 2] [--profile dir]
import { benchOptions, load, printResults, runBench, signUpVerified, startBareFastify, startService } from './lib.ts';

const TARGET_RATIO = 0.6;
const options = benchOptions();

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const bare = await startBareFastify();
  onExit(() => bare.stop());
  const org = await signUpVerified(service);

  const reference = await load('bare Fastify GET /hello', { url: `${bare.url}/hello`, server: bare }, options);
  const sameBody = await load(
    'bare Fastify, whoami-sized body',
    { url: `${bare.url}/whoami-shaped`, server: bare },
    options,
  );
  const whoami = await load(
    'GET /v1/auth/whoami',
    { url: `${service.url}/v1/auth/whoami`, headers: { authorization: `Bearer ${org.apiKey}` }, server: service },
    options,
  );

  const ratio = whoami.requestsPerSecond / reference.requestsPerSecond;
  printResults(
    `whoami vs bare Fastify on ${service.database}: ${options.duration} s, ${options.connections} connections, ${options.warmup} s warm-up each`,
    [reference, sameBody, whoami],
  );
  process.stdout.write(
    `ratio whoami/bare req/s: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}\n`,
  );
  process.stdout.write(
    `ratio whoami/bare with the same body: ${(whoami.requestsPerSecond / sameBody.requestsPerSecond).toFixed(2)}\n`,
  );
  if (reference.serverCpuUs !== null && whoami.serverCpuUs !== null) {
    process.stdout.write(
      `ratio by server CPU per request (bare/whoami): ${(reference.serverCpuUs / whoami.serverCpuUs).toFixed(2)}\n`,
    );
  }
});
