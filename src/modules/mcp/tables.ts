export type McpTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** A wait called as an MCP task (migration 0025). */
export interface McpTasksTable {
  /** mtk_ and 24 random base62 characters: unguessable, not time-ordered. */
  id: string;
  organization_id: string;
  /** The OAuth client id, or the API key id, of the credential that created it. */
  owner: string;
  tool: string;
  /** JSON: the tool's arguments, `since` fixed at creation; `null` once the task ended (a failed task keeps its error only). */
  arguments: string;
  status: McpTaskStatus;
  status_message: string | null;
  /** JSON: the tool's CallToolResult, once completed or failed. */
  result: string | null;
  ttl_ms: number;
  created_at: string;
  updated_at: string;
  /** When the wait gives up (created_at + timeout_s): the task then completes with the wait's timed-out answer. */
  deadline_at: string;
  /** created_at + ttl: afterwards the task is not found, and pruned. */
  expires_at: string;
}

export interface McpTables {
  mcp_tasks: McpTasksTable;
}
