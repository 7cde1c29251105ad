// The MCP endpoint (issue 15) against the service child process, with the SDK's own client
// (Streamable HTTP transport, API key as bearer). One request at a time after a warm-up:
//   1. `tools/call send_message` round trip, alternating with the REST send
//      (POST /v1/cells/{id}/messages/send) in the same run, each with a fresh idempotency key;
//   2. `wait_for_reply`: the tool call is started, the phone uploads an inbound message
//      (POST /v1/device/messages/inbound), and the figure is the time from the upload's answer to
//      the tool result.
// Targets: send_message p50 <= 5 ms; wait_for_reply p99 <= 50 ms after the upload (200 replies).
//   node bench/mcp.ts [--postgres] [--sends 500] [--replies 200] [--profile dir]
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { benchOptions, runBench, signUpVerified, startService } from './lib.ts';
import { benchPhoneNumber, machineLoad, percentile, provisionCell, request } from './support/cells.ts';

const TARGET_SEND_P50_MS = 5;
const TARGET_REPLY_P99_MS = 50;
const WARMUP = 30;
/** How long the wait_for_reply call is given to reach the service and subscribe before the upload. */
const SUBSCRIBE_DELAY_MS = 20;

// --sends and --replies are this benchmark's own flags; the rest are bench/lib.ts's common flags.
const argv = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = argv.indexOf(name);
  const value = at >= 0 ? Number(argv.splice(at, 2)[1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const sends = flag('--sends', 500);
const replies = flag('--replies', 200);
const options = benchOptions(argv);

await runBench(async (onExit) => {
  const service = await startService({ postgres: options.postgres, profile: options.profile });
  onExit(() => service.stop());
  const org = await signUpVerified(service);
  const cell = await provisionCell(service, org);
  const auth = { authorization: `Bearer ${org.apiKey}` };

  // Where the MCP time goes: the HTTP exchange under the SDK client (answer read to its end), by call.
  let exchangeMs = 0;
  const timedFetch: typeof fetch = async (input, init) => {
    const started = performance.now();
    const response = await fetch(input, init);
    await response.clone().arrayBuffer();
    exchangeMs += performance.now() - started;
    return response;
  };
  const client = new Client({ name: 'cellgate-bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: auth },
      fetch: timedFetch,
    }),
  );
  onExit(() => client.close());
  // As an agent would: list the tools once (the client validates results against their schemas).
  await client.listTools();

  const callTool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
    if (result.isError) throw new Error(`${name} answered a tool error: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };

  // 1. send_message over MCP vs the REST send, alternating so both see the same machine.
  const to = benchPhoneNumber();
  const mcpSend = async (i: number) => {
    exchangeMs = 0;
    const started = performance.now();
    const sent = await callTool('send_message', {
      cell_id: cell.cellId,
      to,
      body: `mcp probe ${i}`,
      idempotency_key: randomUUID(),
    });
    const elapsed = performance.now() - started;
    if ((sent.message as { status?: string }).status !== 'queued' || sent.replayed !== false)
      throw new Error(`send_message: ${JSON.stringify(sent)}`);
    return { elapsed, exchange: exchangeMs };
  };
  const restSend = async (i: number) => {
    const started = performance.now();
    await request(`${service.url}/v1/cells/${cell.cellId}/messages/send`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      body: { to, body: `rest probe ${i}` },
      expect: 202,
    });
    return performance.now() - started;
  };
  const mcpTimes: number[] = [];
  const mcpExchanges: number[] = [];
  const restTimes: number[] = [];
  for (let i = 0; i < WARMUP + sends; i += 1) {
    const mcp = await mcpSend(i);
    const rest = await restSend(i);
    if (i >= WARMUP) {
      mcpTimes.push(mcp.elapsed);
      mcpExchanges.push(mcp.exchange);
      restTimes.push(rest);
    }
  }

  // 2. wait_for_reply, woken by an inbound upload. `since` is the previous reply (or a time before
  // the first), so the reply is found even if the call were to arrive after the upload.
  const from = benchPhoneNumber();
  let since = new Date(Date.now() - 1000).toISOString();
  const afterUpload: number[] = [];
  const uploads: number[] = [];
  let resultFirst = 0;
  for (let i = 0; i < WARMUP + replies; i += 1) {
    let resultAt = 0;
    const waiting = callTool('wait_for_reply', { cell_id: cell.cellId, participant: from, since, timeout_s: 30 }).then(
      (reply) => {
        resultAt = performance.now();
        return reply;
      },
    );
    await sleep(SUBSCRIBE_DELAY_MS);
    const uploading = performance.now();
    const uploaded = await request(`${service.url}/v1/device/messages/inbound`, {
      method: 'POST',
      headers: { 'x-phone-key': cell.deviceKey },
      body: { device_message_id: randomUUID(), from, body: `reply ${i}`, received_at: new Date().toISOString() },
      expect: 201,
    });
    const answeredAt = performance.now();
    const reply = await waiting;
    const message = reply.message as { id?: string } | null;
    if (message?.id !== uploaded.id)
      throw new Error(`wait_for_reply returned ${JSON.stringify(reply)}, not the upload ${String(uploaded.id)}`);
    since = String(reply.next_since);
    if (i >= WARMUP) {
      // The result may even reach us before the upload's own answer: that counts as 0.
      if (resultAt < answeredAt) resultFirst += 1;
      afterUpload.push(Math.max(0, resultAt - answeredAt));
      uploads.push(answeredAt - uploading);
    }
  }

  const row = (label: string, samples: number[]) =>
    `${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(samples, 99).toFixed(2).padStart(7)} ms  max ${Math.max(
      ...samples,
    )
      .toFixed(2)
      .padStart(7)} ms`;
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  const sendP50 = percentile(mcpTimes, 50);
  const restP50 = percentile(restTimes, 50);
  const replyP99 = percentile(afterUpload, 99);
  process.stdout.write(
    [
      `MCP on ${service.database}: ${sends} sends each way (alternating) and ${replies} replies, one at a time, after ${WARMUP} warm-up each`,
      row('  tools/call send_message (round trip)', mcpTimes),
      row('    of which its HTTP exchange (POST /mcp)', mcpExchanges),
      row('  REST POST .../messages/send (202)', restTimes),
      row('  POST /v1/device/messages/inbound (201)', uploads),
      row('  upload answered → wait_for_reply result', afterUpload),
      `  (${resultFirst} of ${replies} results arrived before the upload's answer; counted as 0 ms)`,
      `send_message p50 ${sendP50.toFixed(2)} ms (target <= ${TARGET_SEND_P50_MS}) ${verdict(sendP50 <= TARGET_SEND_P50_MS)}; REST send p50 ${restP50.toFixed(2)} ms in the same run (MCP/REST ${(sendP50 / restP50).toFixed(2)}x)`,
      `wait_for_reply p99 ${replyP99.toFixed(2)} ms after the upload (target <= ${TARGET_REPLY_P99_MS}) ${verdict(replyP99 <= TARGET_REPLY_P99_MS)}`,
      machineLoad(),
    ].join('\n') + '\n',
  );
});
