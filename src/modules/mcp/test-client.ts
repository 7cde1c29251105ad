// For the MCP tests: a listening app and the SDK's own client (Streamable HTTP transport).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startApp, type StartOptions, type TestApp } from '../../../test/harness.ts';

export interface McpTestApp extends TestApp {
  /** http://127.0.0.1:<port>, also the app's base URL. */
  origin: string;
}

/** An app listening on loopback whose base URL is its own address (Host validation allows it). */
export async function startListening(options: StartOptions = {}): Promise<McpTestApp> {
  // The base URL must name the port before the app is built: reserve one first.
  const { createServer } = await import('node:net');
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  const t = await startApp({ ...options, env: { CELLGATE_BASE_URL: origin, ...options.env } });
  await t.app.listen({ host: '127.0.0.1', port });
  return Object.assign(t, { origin });
}

export async function mcpClient(t: McpTestApp, token: string): Promise<Client> {
  const client = new Client({ name: 'cellgate-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** structuredContent of a tool result, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary members
export const structured = (result: unknown): any => (result as { structuredContent?: unknown }).structuredContent;
