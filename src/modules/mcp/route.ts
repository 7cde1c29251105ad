// POST /mcp (and GET/DELETE, which a stateless endpoint answers 405): the agent credential check
// of every agent route (src/http/auth.ts: API key, or OAuth token whose audience is {base}/mcp),
// its rate limit, Host and Origin validation (the SDK's Fastify hooks), then the SDK's handler.
// The body reaches the SDK as sent, so JSON-RPC errors (parse, batch) are the SDK's own.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentOf } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import { ApiError } from '../../lib/errors.ts';
import { admit } from '../../operations/admit.ts';
import { MCP_SCOPES, toolScope } from './scopes.ts';
import { TASK_TOOLS, taskRequestOf, type McpTasks } from './tasks.ts';

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

/** A JSON-RPC body (a message or a batch), or undefined when it does not parse: unparsable bodies are the SDK's to refuse. */
function parsed(body: Uint8Array | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}

/** The scope the tasks/* methods need: that of the wait tools, the only tools that run as tasks. */
const TASKS_SCOPE = toolScope(TASK_TOOLS[0]);

/** The scopes the `tools/call` and tasks/* requests of a JSON-RPC body need (a batch: each member's). */
function neededScopes(body: unknown): string[] {
  const needed = new Set<string>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    const method = typeof call?.method === 'string' ? call.method : '';
    const scope =
      method === 'tools/call' ? toolScope(call?.params?.name) : method.startsWith('tasks/') ? TASKS_SCOPE : undefined;
    if (scope) needed.add(scope);
  }
  return [...needed];
}

/**
 * MCP scope step-up (2025-11-25): a token lacking a tool's scope (admission's insufficient_scope)
 * is HTTP 403 with a challenge a client re-authorizes from by itself. The challenge names the
 * missing scopes with those the token holds, so a client that replaces its scope with the
 * challenge's (the v1 SDK does) keeps them.
 */
function stepUp(agent: AgentPrincipal, needed: string[], metadataUrl: string): ApiError | undefined {
  try {
    // The endpoint admits unverified organizations: each tool call is admitted by its operation.
    admit({ scope: needed, allowUnverified: true }, agent);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'insufficient_scope') throw error;
    const scope = [
      ...new Set([...agent.scopes.filter((held) => (MCP_SCOPES as readonly string[]).includes(held)), ...needed]),
    ]
      .sort()
      .join(' ');
    return new ApiError(error.code, error.message, {
      headers: {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl}"`,
      },
      extensions: error.extensions,
    });
  }
}

export async function registerMcpRoute(
  app: App,
  loadHandler: () => Promise<McpHttpHandler>,
  options: { baseUrl: string; tasks: McpTasks },
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
      const message = parsed(body);
      const refused = stepUp(agent, neededScopes(message), metadataUrl);
      if (refused) throw refused;
      // Tasks (./tasks.ts) are answered here: the SDK parses their vocabulary but runs none of it.
      const taskRequest = request.method === 'POST' ? taskRequestOf(message) : undefined;
      if (taskRequest)
        return reply.send(
          await options.tasks.answer(taskRequest, agent, { requestId: request.id, log: request.log }, hangUp.signal),
        );
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
          extra: { agent, call: { requestId: request.id, log: request.log } },
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
