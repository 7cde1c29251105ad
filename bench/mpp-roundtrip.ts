// The whole MPP round trip on loopback (issue 14): POST /v1/billing/mpp/pay with the key → 402
// with a `WWW-Authenticate: Payment` challenge → the payer "broadcasts" a Tempo transfer bound to
// it (a local JSON-RPC serving its receipt) → retry with `Authorization: Payment` → the service
// reads the receipt, checks it, credits once → 200 with Payment-Receipt. One payment at a time.
//   node bench/mpp-roundtrip.ts [--postgres] [--payments 200]
import { Challenge, Credential } from 'mppx';
import { MPP_TEST, mppEnv, startTempoRpc } from '../test/support/mpp-rpc-double.ts';
import { tempoMemo } from '../src/modules/billing/mpp-tempo.ts';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { percentile } from './support/cells.ts';

const WARMUP = 20;
const argv = process.argv.slice(2);
const at = argv.indexOf('--payments');
const count = at >= 0 ? Number(argv.splice(at, 2)[1]) : 200;
if (!Number.isInteger(count) || count < 1) throw new Error('--payments must be a positive integer');
const options = benchOptions(argv);

await runBench(async (onExit) => {
  const rpc = await startTempoRpc(MPP_TEST.chainId);
  onExit(() => rpc.close());
  const service = await startService({
    postgres: options.postgres,
    profile: options.profile,
    env: { ...mppEnv(rpc.url), CELLGATE_RATE_LIMIT: '0' },
  });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const body = JSON.stringify({ intent: 'top_up', amount_usd: '5.00' });
  const post = (authorization: string) =>
    fetch(`${service.url}/v1/billing/mpp/pay`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body,
    });

  const once = async () => {
    const started = performance.now();
    const asked = await post(`Bearer ${org.apiKey}`);
    await asked.arrayBuffer();
    if (asked.status !== 402) throw new Error(`the challenge answered ${asked.status}`);
    const challenge = Challenge.deserialize(String(asked.headers.get('www-authenticate')));
    const hash = rpc.transfer({
      token: MPP_TEST.token,
      to: MPP_TEST.recipient,
      amount: BigInt(String(challenge.request.amount)),
      memo: tempoMemo(challenge.realm, challenge.id),
    });
    const paid = await post(Credential.serialize(Credential.from({ challenge, payload: { type: 'hash', hash } })));
    await paid.arrayBuffer();
    if (paid.status !== 200) throw new Error(`the payment answered ${paid.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i += 1) await once();
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) times.push(await once());
  console.log(
    `MPP round trip (402 challenge, transfer, retry, receipt read, credit), ${service.database}, ${count} payments one at a time`,
  );
  console.log(
    `  p50 ${percentile(times, 50).toFixed(1)} ms, p90 ${percentile(times, 90).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
  );
});
