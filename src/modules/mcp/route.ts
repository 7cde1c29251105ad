// POST /mcp (and GET/DELETE, which a stateless endpoint answers 405): the agent credential check
// of every agent route (src/http/auth.ts: API key, or OAuth token whose audience is {base}/mcp),
// its rate limit, Host and Origin validation (the SDK's Fastify hooks), then the SDK's handler.
// The body reaches the SDK as sent, so JSON-RPC errors (parse, batch) are the SDK's own.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentOf } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import { MCP_SCOPES } from './scopes.ts';

/** The hosts an MCP request may name: the public base URL's and loopback. */
export function allowedHosts(baseUrl: string): string[] {
  return [...new Set([new URL(baseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'])];
}

const SKIPPED_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function webHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export async function registerMcpRoute(app: App, loadHandler: () => Promise<McpHttpHandler>, options: { baseUrl: string }): Promise<void> {
  const hosts = allowedHosts(options.baseUrl);
  const url = `${options.baseUrl.replace(/\/$/, '')}/mcp`;
  // The SDK's Host and Origin hooks load with the SDK, on the first request.
  let guards: Promise<Guard[]> | undefined;
  const loadGuards = async (): Promise<Guard[]> => {
    const { hostHeaderValidation, originValidation } = await import('@modelcontextprotocol/fastify');
    return [hostHeaderValidation(hosts), originValidation(hosts)];
  };
  const validate = async (request: FastifyRequest, reply: FastifyReply) => {
    for (const guard of await (guards ??= loadGuards())) {
      await guard(request, reply);
      if (reply.sent) return reply;
    }
  };
  let closing: (() => Promise<void>) | undefined;
  app.addHook('onClose', async () => closing?.());
  // A context of its own: here any body is handed over as bytes, for the SDK to parse.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      const agent = agentOf(request);
      // The client hanging up (a wait_for_reply given up) ends the tool's wait.
      const hangUp = new AbortController();
      reply.raw.once('close', () => hangUp.abort());
      const body = request.body instanceof Buffer ? new Uint8Array(request.body) : undefined;
      const web = new Request(url, { method: request.method, headers: webHeaders(request), body: request.method === 'POST' ? body : undefined, signal: hangUp.signal });
      const handler = await loadHandler();
      closing ??= () => handler.close();
      const response = await handler.fetch(web, { authInfo: { token: '', clientId: agent.client?.id ?? agent.credentialId, scopes: agent.scopes, extra: { agent } } });
      return reply.send(response);
    };
    scope.route({
      method: ['POST', 'GET', 'DELETE'],
      url: '/mcp',
      config: { auth: 'agent', allowUnverified: true, challengeScope: MCP_SCOPES.join(' ') },
      schema: { hide: true },
      onRequest: validate,
      handler: serve,
    });
  });
}
