// The MCP endpoint (contract §10): POST /mcp serves the Model Context Protocol over Streamable
// HTTP, statelessly (one server per request, so any process answers any request), with tools
// that call the same services as the REST routes.
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { App, AgentPrincipal } from '../../http/types.ts';
import { registerMcpRoute } from './route.ts';
import { mcpServer, type ToolDeps } from './tools.ts';

export interface McpModule {
  handler: McpHttpHandler;
}

export function build(deps: ToolDeps): McpModule {
  const handler = createMcpHandler((ctx) => mcpServer(deps, ctx.authInfo?.extra?.agent as AgentPrincipal));
  return { handler };
}

export async function register(app: App, module: McpModule, options: { baseUrl: string }): Promise<void> {
  app.addHook('onClose', () => module.handler.close());
  await registerMcpRoute(app, module.handler, options);
}
