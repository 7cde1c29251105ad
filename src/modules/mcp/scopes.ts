// The scope each tool needs: the scope of the matching REST route (null: any credential, as
// GET /v1/agent/status). A table without the SDK, so the route decides a call's scope before
// loading it, and the 401 challenge and the protected-resource metadata derive from it.
export const TOOL_SCOPES = {
  list_cells: 'cells:read',
  get_status: null,
  list_conversations: 'messages:read',
  get_conversation: 'messages:read',
  list_messages: 'messages:read',
  send_message: 'messages:send',
  wait_for_reply: 'messages:read',
  wait_for_delivery: 'messages:read',
  create_cell: 'cells:write',
  wait_for_code: 'messages:read',
  list_pods: 'cells:read',
  send_from_pod: 'messages:send',
  start_cycle: 'messages:send',
  get_usage: 'usage:read',
  list_webhook_deliveries: 'webhooks:write',
  cancel_message: 'messages:send',
  verify_organization: null,
  get_billing: 'billing:read',
  pay: 'billing:write',
} as const satisfies Record<string, string | null>;

export type ToolName = keyof typeof TOOL_SCOPES;
export type McpScope = NonNullable<(typeof TOOL_SCOPES)[ToolName]>;

/** The scopes the MCP tools use, sorted: a 401 on /mcp names them (RFC 6750 `scope`), and so does /.well-known/oauth-protected-resource/mcp. */
export const MCP_SCOPES: readonly McpScope[] = [
  ...new Set(Object.values(TOOL_SCOPES).filter((scope) => scope !== null)),
].sort();

/** The scope a tool needs, or undefined for a tool that needs none (or no such tool: the SDK answers that). */
export function toolScope(name: unknown): McpScope | undefined {
  return typeof name === 'string' && Object.hasOwn(TOOL_SCOPES, name)
    ? (TOOL_SCOPES[name as ToolName] ?? undefined)
    : undefined;
}
