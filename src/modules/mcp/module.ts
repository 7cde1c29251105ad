// The MCP endpoint (contract §10): POST /mcp serves the Model Context Protocol over Streamable
// HTTP, statelessly (one server per request, so any process answers any request), with tools
// that call the same services as the REST routes. The SDK (and zod) load on the first request:
// they hold ~15 MB that a service nobody reaches over MCP should not carry.
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { App, AgentPrincipal } from '../../http/types.ts';
import { registerMcpRoute } from './route.ts';
import type { ToolDeps } from './tools.ts';

export interface McpModule {
  /** The SDK's handler, loaded once on first use. */
  handler: () => Promise<McpHttpHandler>;
}

export function build(deps: ToolDeps): McpModule {
  let loading: Promise<McpHttpHandler> | undefined;
  const load = async () => {
    const [{ createMcpHandler }, { mcpServer }] = await Promise.all([
      import('@modelcontextprotocol/server'),
      import('./tools.ts'),
    ]);
    return createMcpHandler((ctx) => mcpServer(deps, ctx.authInfo?.extra?.agent as AgentPrincipal));
  };
  return { handler: () => (loading ??= load()) };
}

export async function register(app: App, module: McpModule, options: { baseUrl: string }): Promise<void> {
  await registerMcpRoute(app, module.handler, options);
}
