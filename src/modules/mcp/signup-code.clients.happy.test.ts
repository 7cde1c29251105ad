// Issue 26 "done when": an agent in an MCP host signs up for an account elsewhere with its
// Cellgate number and reads the code with wait_for_code. The elsewhere is a real HTTP service
// here that, asked to sign up a number, texts a one-time code to it in the style of the big
// senders; the text reaches the simulated phone carrying the agent's cell over the simulated
// network, as an inbound SMS, and the agent completes the sign-up with the code it read —
// through both SDK client generations, bounded, and as an MCP task on the v1 client.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { SimulatedNetwork, type SimulatedDevice } from '../../cli/device-simulator.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';
import {
  SDK_CLIENTS,
  connectV1,
  startListening,
  startPhone,
  structured,
  type AnyMcpClient,
  type McpTestApp,
} from '../../../test/support/mcp-client.ts';

/** The number the service texts from (a toll-free sender, as the big ones use). */
const SENDER = '+18885550142';

interface SignupService {
  url: string;
  /** The accounts opened, by phone number. */
  accounts: Map<string, string>;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
}

/**
 * "Acme", a third-party service with SMS sign-up: POST /signup {phone} texts a six-digit code to
 * the number (through the carrier: the simulated network), POST /signup/verify {phone, code}
 * opens the account when the code is the one sent, and refuses any other.
 */
async function startSignupService(network: SimulatedNetwork): Promise<SignupService> {
  const pending = new Map<string, string>();
  const accounts = new Map<string, string>();
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    void (async () => {
      const body = await bodyOf(request);
      const phone = String(body.phone);
      if (request.method === 'POST' && request.url === '/signup') {
        const phoneOfNumber = network.carrier(phone);
        if (!phoneOfNumber) return answer(422, { error: 'unreachable_number' });
        const code = String(randomInt(100_000, 1_000_000));
        pending.set(phone, code);
        const sent = await phoneOfNumber.sendInbound(
          SENDER,
          `Your Acme verification code is ${code}. It expires in 10 minutes. Don't share it: Acme staff will never ask for it. Msg&data rates may apply.`,
        );
        return answer(sent.status === 201 ? 202 : 502, { status: 'code_sent' });
      }
      if (request.method === 'POST' && request.url === '/signup/verify') {
        if (!pending.has(phone) || pending.get(phone) !== body.code) return answer(400, { error: 'invalid_code' });
        pending.delete(phone);
        const account = `acme_${accounts.size + 1}`;
        accounts.set(phone, account);
        return answer(201, { account, phone });
      }
      return answer(404, { error: 'not_found' });
    })().catch((error: unknown) => answer(500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accounts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const postJson = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
};

describe('an agent signs up for Acme with its Cellgate number and reads the code over MCP', () => {
  let t: McpTestApp;
  let acme: SignupService;
  const phones: SimulatedDevice[] = [];
  const network = new SimulatedNetwork();
  before(async () => {
    t = await startListening();
    acme = await startSignupService(network);
  });
  after(async () => {
    for (const phone of phones) await phone.stop();
    await acme?.close();
    await t?.close();
  });

  /** A new organization whose cell is carried by a simulated phone on the network. */
  const agentLine = async (): Promise<Line> => {
    const line = await activeLine(t);
    phones.push(await startPhone(t, line, network));
    return line;
  };

  /** The agent's part before the code: its number (from list_cells), and asking Acme to sign it up. */
  const requestCode = async (client: Pick<AnyMcpClient, 'callTool'>, line: Line) => {
    const cells = structured(await client.callTool('list_cells', {})).cells as { id: string; phone_number: string }[];
    const cell = cells.find((c) => c.id === line.cell.id)!;
    // Codes from before this moment are not this sign-up's.
    const since = t.clock.now().toISOString();
    t.clock.advance(1000);
    const wrong = await postJson(`${acme.url}/signup/verify`, { phone: cell.phone_number, code: '000000' });
    assert.equal(wrong.status, 400);
    const asked = await postJson(`${acme.url}/signup`, { phone: cell.phone_number });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    return { cell, since };
  };

  const completeSignup = async (phone: string, code: { code: string; service: string; from: string }) => {
    assert.equal(code.service, 'Acme');
    assert.equal(code.from, SENDER);
    const done = await postJson(`${acme.url}/signup/verify`, { phone, code: code.code });
    assert.equal(done.status, 201, JSON.stringify(done.body));
    assert.equal(acme.accounts.get(phone), done.body.account);
  };

  for (const { sdk, connect } of SDK_CLIENTS) {
    it(`through the ${sdk} SDK client, with a bounded wait_for_code`, async () => {
      const line = await agentLine();
      const client = await connect(t, line.org.apiKey);
      try {
        const { cell, since } = await requestCode(client, line);
        const result = structured(
          await client.callTool('wait_for_code', { cell_id: cell.id, service: 'acme', since, timeout_s: 10 }),
        );
        assert.match(result.code.code, /^\d{6}$/);
        await completeSignup(cell.phone_number, result.code);
      } finally {
        await client.close();
      }
    });
  }

  it('through the v1 SDK client, with wait_for_code as an MCP task', async () => {
    const line = await agentLine();
    const client = await connectV1(t, line.org.apiKey);
    try {
      // The task starts before the code is asked for: the agent goes on with the sign-up meanwhile.
      const since = t.clock.now().toISOString();
      t.clock.advance(1000);
      const stream = client.experimental.tasks.callToolStream(
        { name: 'wait_for_code', arguments: { cell_id: line.cell.id, service: 'Acme', since, timeout_s: 30 } },
        CallToolResultSchema,
        { task: { ttl: 10 * 60_000 } },
      );
      const created = await stream.next();
      assert.equal(created.value?.type, 'taskCreated');
      const asked = await postJson(`${acme.url}/signup`, { phone: line.cell.phone_number });
      assert.equal(asked.status, 202);
      let result: { structuredContent?: unknown } | undefined;
      for await (const message of stream) if (message.type === 'result') result = message.result;
      const { code } = result?.structuredContent as { code: { code: string; service: string; from: string } };
      await completeSignup(line.cell.phone_number, code);
    } finally {
      await client.close();
    }
  });
});
