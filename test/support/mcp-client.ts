// For the MCP tests: a listening app and the SDKs' own clients (Streamable HTTP transport): the
// v2 client, and the v1 client most deployed hosts (and the Inspector) still run.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { PaymentRequired } from '@x402/core/types';
import { startSimulatedDevice, type SimulatedDevice, type SimulatedNetwork } from '../../src/cli/device-simulator.ts';
import { listeningTestApp, type StartOptions, type TestApp } from '../harness.ts';
import type { Line } from './messages.ts';

export interface McpTestApp extends TestApp {
  /** http://127.0.0.1:<port>, also the app's base URL. */
  origin: string;
}

/** An app listening on loopback whose base URL is its own address (Host validation allows it). */
export async function startListening(options: StartOptions = {}): Promise<McpTestApp> {
  const { t, base } = await listeningTestApp(options);
  return Object.assign(t, { origin: base });
}

/** What an MCP suite uses: its listening app and the client it acts through. */
export interface McpSuite<C> {
  t: McpTestApp;
  /** Connected with the key the suite's `owner` answered. */
  client: C;
  /** Connects another client; the suite closes it with its own. */
  open(token: string): Promise<C>;
}

/**
 * An MCP suite's app and client, in the useApp style: call it in a describe(). Before the suite's
 * tests it starts a listening app, runs `owner` (which makes what the suite acts as and answers
 * its key) and connects with that key; after them it closes every client it connected, then the
 * app. A `before` registered after this line finds them ready; an `after` registered before it
 * runs while they are still open.
 */
export function useMcpClient<C extends { close(): Promise<void> }>(
  connect: (t: McpTestApp, token: string) => Promise<C>,
  owner: (t: McpTestApp) => Promise<string>,
  options: StartOptions = {},
): McpSuite<C> {
  let t: McpTestApp | undefined;
  let client: C | undefined;
  const opened: C[] = [];
  const open = async (token: string) => {
    const connected = await connect(startedValue(t), token);
    opened.push(connected);
    return connected;
  };
  before(async () => {
    t = await startListening(options);
    client = await open(await owner(t));
  });
  after(async () => {
    for (const connected of opened) await connected.close().catch(() => {});
    await t?.close();
  });
  return { t: lateBound(() => t), client: lateBound(() => client), open };
}

function startedValue<T>(value: T | undefined): T {
  if (value === undefined)
    throw new Error("useMcpClient(): the app and client start in the suite's before hook; use them in tests and hooks");
  return value;
}

/** Stands for a value the suite's before hook makes (its methods bound to it). */
function lateBound<T extends object>(read: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = startedValue(read());
      const member: unknown = Reflect.get(value, key);
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}

/** The simulated phone carrying `line`'s cell, on the test clock, quick to report (on `network`, if given). */
export function startPhone(t: McpTestApp, line: Line, network?: SimulatedNetwork): Promise<SimulatedDevice> {
  return startSimulatedDevice({
    baseUrl: t.origin,
    key: line.device.key,
    deliveryDelayMs: 0,
    pollWaitSeconds: 1,
    logger: () => {},
    now: () => t.clock.now(),
    network,
  });
}

export async function mcpClient(t: McpTestApp, token: string): Promise<Client> {
  const client = new Client({ name: 'cellgate-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** A tool result as either SDK answers it, typed loosely for assertions. */
export interface ToolResult {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** What a test needs of an MCP client, whichever SDK generation it is. */
export interface AnyMcpClient {
  /** `meta`: the request's `_meta` (an x402 payment: `{"x402/payment": PaymentPayload}`). */
  callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** The v1 SDK's client itself, connected, its tools listed (for its experimental Tasks API). */
export async function connectV1(t: McpTestApp, token: string) {
  const [{ Client: ClientV1 }, { StreamableHTTPClientTransport: TransportV1 }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new ClientV1({ name: 'cellgate-test-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(`${t.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  await client.listTools();
  return client;
}

/**
 * The v1 SDK's client. It lists the tools first, as hosts do: that is when it caches each
 * tool's output schema, against which it then validates every result's structuredContent.
 */
export async function mcpClientV1(t: McpTestApp, token: string): Promise<AnyMcpClient> {
  const client = await connectV1(t, token);
  return {
    callTool: (name, args, meta) =>
      client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<ToolResult>,
    close: () => client.close(),
  };
}

/** Both SDK generations, for tests that must hold for every MCP client. */
export const SDK_CLIENTS: { sdk: 'v1' | 'v2'; connect(t: McpTestApp, token: string): Promise<AnyMcpClient> }[] = [
  {
    sdk: 'v2',
    connect: async (t, token) => {
      const client = await mcpClient(t, token);
      return {
        callTool: (name, args, meta) =>
          client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<ToolResult>,
        close: () => client.close(),
      };
    },
  },
  { sdk: 'v1', connect: mcpClientV1 },
];

/** structuredContent of a tool result, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
export const structured = (result: unknown): any => (result as { structuredContent?: unknown }).structuredContent;

/**
 * The error of a tool error: `isError`, no structuredContent (v1 hosts would validate it against
 * the output schema), and `{"error": {...}}` as JSON in the text content.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
export function toolErrorOf(result: ToolResult): any {
  assert.equal(result.isError, true, `a tool error: ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, 'a tool error has no structuredContent');
  const [first] = result.content as { type: string; text: string }[];
  assert.equal(first.type, 'text');
  return (JSON.parse(first.text) as { error: unknown }).error;
}

/**
 * A paid tool's payment_required in the x402 v2 MCP transport's form: the PaymentRequired (the
 * structuredContent, and as JSON the first text) and the error (the second text).
 */
export function paymentRequiredOf(result: ToolResult) {
  assert.equal(result.isError, true, JSON.stringify(result));
  const [first, second] = result.content as { text: string }[];
  const required = result.structuredContent as PaymentRequired;
  assert.deepEqual(JSON.parse(first.text), required, 'content[0].text is the PaymentRequired as JSON');
  assert.equal(required.x402Version, 2);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
  return { required, error: (JSON.parse(second.text) as { error: any }).error };
}
