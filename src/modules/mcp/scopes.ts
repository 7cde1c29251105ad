/** The scopes the MCP tools need: a 401 on /mcp names them (RFC 6750 `scope`). */
export const MCP_SCOPES = ['cells:read', 'cells:write', 'messages:read', 'messages:send'] as const;
