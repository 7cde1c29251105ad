// The MCP endpoint (contract §10): POST /mcp serves the Model Context Protocol over Streamable
// HTTP, statelessly (one server per request, so any process answers any request), with tools
// bound from the same operations as the REST routes (./tools.ts). The SDK loads on the first
// request: it holds ~15 MB that a service nobody reaches over MCP should not carry.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { App, AgentPrincipal } from '../../http/types.ts';
import { registerMcpRoute } from './route.ts';
import { boundTools, mcpServer, type ToolDeps } from './tools.ts';

export interface McpModule {
  /** The SDK's handler, loaded once on first use. */
  handler: () => Promise<McpHttpHandler>;
}

export function build(deps: ToolDeps): McpModule {
  // Bound (schemas compiled, scopes checked) at start-up: a tool out of step refuses the start.
  const tools = boundTools(deps.operations);
  let loading: Promise<McpHttpHandler> | undefined;
  const load = async () => {
    const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
    return createMcpHandler((ctx) => mcpServer(McpServer, deps, tools, ctx.authInfo?.extra?.agent as AgentPrincipal));
  };
  return { handler: () => (loading ??= load()) };
}

export async function register(app: App, module: McpModule, options: { baseUrl: string }): Promise<void> {
  await registerMcpRoute(app, module.handler, options);
}
