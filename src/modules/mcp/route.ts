// POST /mcp (and GET/DELETE, which a stateless endpoint answers 405): the agent credential check
// of every agent route (src/http/auth.ts: API key, or OAuth token whose audience is {base}/mcp),
// its rate limit, Host and Origin validation (the SDK's Fastify hooks), then the SDK's handler.
// The body reaches the SDK as sent, so JSON-RPC errors (parse, batch) are the SDK's own.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentOf } from '../../http/auth.ts';
import type { AgentPrincipal, App } from '../../http/types.ts';
import { ApiError } from '../../lib/errors.ts';
import { MCP_SCOPES, toolScope } from './scopes.ts';

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

/** The scopes the `tools/call` requests of a JSON-RPC body need (a batch: each member's); unparsable bodies are the SDK's to refuse. */
function neededScopes(body: Uint8Array | undefined): string[] {
  if (!body) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return [];
  }
  const needed = new Set<string>();
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    const scope = call?.method === 'tools/call' ? toolScope(call.params?.name) : undefined;
    if (scope) needed.add(scope);
  }
  return [...needed];
}

/**
 * MCP scope step-up (2025-11-25): a token lacking a tool's scope is HTTP 403 with a challenge a
 * client re-authorizes from by itself. The challenge names the missing scopes with those the
 * token holds, so a client that replaces its scope with the challenge's (the v1 SDK does) keeps them.
 */
function stepUp(agent: AgentPrincipal, needed: string[], metadataUrl: string): ApiError | undefined {
  const missing = needed.filter((scope) => !agent.scopes.includes(scope));
  if (missing.length === 0) return undefined;
  const scope = [
    ...new Set([...agent.scopes.filter((held) => (MCP_SCOPES as readonly string[]).includes(held)), ...needed]),
  ]
    .sort()
    .join(' ');
  return new ApiError(
    'insufficient_scope',
    `The access token lacks the ${missing.join(' ')} scope${missing.length > 1 ? 's' : ''}.`,
    {
      headers: {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl}"`,
      },
      extensions: { scope: missing.join(' ') },
    },
  );
}

export async function registerMcpRoute(
  app: App,
  loadHandler: () => Promise<McpHttpHandler>,
  options: { baseUrl: string },
): Promise<void> {
  const hosts = allowedHosts(options.baseUrl);
  const url = `${options.baseUrl.replace(/\/$/, '')}/mcp`;
  const metadataUrl = `${options.baseUrl.replace(/\/$/, '')}/.well-known/oauth-protected-resource/mcp`;
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
      const refused = stepUp(agent, neededScopes(body), metadataUrl);
      if (refused) throw refused;
      const web = new Request(url, {
        method: request.method,
        headers: webHeaders(request),
        body: request.method === 'POST' ? body : undefined,
        signal: hangUp.signal,
      });
      const handler = await loadHandler();
      closing ??= () => handler.close();
      const response = await handler.fetch(web, {
        authInfo: {
          token: '',
          clientId: agent.client?.id ?? agent.credentialId,
          scopes: agent.scopes,
          extra: { agent },
        },
      });
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
