// The whole x402 round trip on loopback (issue 14): an agent pays a top-up with a standard client
// (@x402/fetch, a viem test account): POST /v1/billing/x402/pay → 402 with PAYMENT-REQUIRED →
// the client signs → retry with PAYMENT-SIGNATURE → the service verifies and settles through a
// local facilitator (which checks the EIP-712 signature) → credited → 200. One payment at a time.
// Target: p50 <= 30 ms.
//   node bench/x402-roundtrip.ts [--postgres] [--payments 200]
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startFacilitator } from '../test/support/x402-facilitator.ts';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { percentile } from './support/cells.ts';

const TARGET_P50_MS = 30;
const WARMUP = 20;
const PAY_TO = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const argv = process.argv.slice(2);
const at = argv.indexOf('--payments');
const count = at >= 0 ? Number(argv.splice(at, 2)[1]) : 200;
if (!Number.isInteger(count) || count < 1) throw new Error('--payments must be a positive integer');
const options = benchOptions(argv);

await runBench(async (onExit) => {
  const facilitator = await startFacilitator();
  onExit(() => facilitator.close());
  const service = await startService({
    postgres: options.postgres,
    profile: options.profile,
    env: {
      CELLGATE_X402_BASE_PAY_TO: PAY_TO,
      CELLGATE_X402_FACILITATOR_URL: facilitator.url,
      CELLGATE_RATE_LIMIT: '0',
    },
  });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const client = x402Client.fromConfig({
    schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
    spendControls: { maxAmountPerPayment: '$100' },
  });
  const pay = wrapFetchWithPayment(fetch, client);

  const once = async () => {
    const started = performance.now();
    const response = await pay(`${service.url}/v1/billing/x402/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ intent: 'top_up', amount_usd: '5.00' }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`the payment answered ${response.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i += 1) await once();
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) times.push(await once());
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  console.log(
    `x402 round trip (402, sign, retry, verify, settle, credit), ${service.database}, ${count} payments one at a time`,
  );
  console.log(
    `  p50 ${p50.toFixed(1)} ms (target <= ${TARGET_P50_MS}: ${p50 <= TARGET_P50_MS ? 'met' : 'MISSED'}), p90 ${percentile(times, 90).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
  );
});
