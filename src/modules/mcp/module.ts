// The MCP endpoint (contract §10): POST /mcp serves the Model Context Protocol over Streamable
// HTTP, statelessly (one server per request, so any process answers any request), with tools
// bound from the same operations as the REST routes (./tools.ts). The SDK loads on the first
// request: it holds ~15 MB that a service nobody reaches over MCP should not carry.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { App } from '../../http/types.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CallContext } from './results.ts';
import { registerMcpRoute } from './route.ts';
import { McpTasks } from './tasks.ts';
import { boundTools, mcpServer, type ToolDeps } from './tools.ts';

export interface McpModule {
  /** The SDK's handler, loaded once on first use. */
  handler: () => Promise<McpHttpHandler>;
  /** The waits called as MCP tasks, kept in the database. */
  tasks: McpTasks;
  /** Ends every wait now (the app is closing). */
  drain(): void;
}

export function build(deps: Omit<ToolDeps, 'drain'> & { db: Kysely<DB>; clock: Clock }): McpModule {
  // Aborted as the app starts closing (preClose, before in-flight requests are awaited): every
  // wait answers at once, so a drain takes no longer than the slowest non-wait request.
  const draining = new AbortController();
  const withDrain = { ...deps, drain: draining.signal };
  // Bound (schemas compiled, scopes checked) at start-up: a tool out of step refuses the start.
  const tools = boundTools(deps.operations);
  let loading: Promise<McpHttpHandler> | undefined;
  const load = async () => {
    const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
    return createMcpHandler((ctx) => {
      const extra = ctx.authInfo?.extra as { agent: AgentPrincipal; call: CallContext };
      return mcpServer(McpServer, withDrain, tools, extra.agent, extra.call);
    });
  };
  const tasks = new McpTasks({ ...withDrain, tools });
  return { handler: () => (loading ??= load()), tasks, drain: () => draining.abort() };
}

export async function register(app: App, module: McpModule, options: { baseUrl: string }): Promise<void> {
  app.addHook('preClose', async () => module.drain());
  await registerMcpRoute(app, module.handler, { ...options, tasks: module.tasks });
}
