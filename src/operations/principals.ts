// Who calls: the principals a credential resolves to (http/auth.ts resolves them; admission,
// ./admit.ts, and the services read them).

export interface AgentPrincipal {
  organizationId: string;
  organizationName: string;
  organizationStatus: 'unverified' | 'active' | 'suspended';
  credentialType: 'api_key' | 'oauth_token';
  credentialId: string;
  key: { id: string; prefix: string; created_at: string; last_used_at: string | null };
  scopes: string[];
  /** The OAuth client an access token was issued to (credentialType 'oauth_token'). */
  client?: { id: string; name: string | null };
}

/** The resource a bearer credential is presented to: the REST API (/v1) or the MCP endpoint (/mcp). */
export type BearerResource = 'v1' | 'mcp';

export interface AdminPrincipal {
  tokenId: string;
}

export interface DevicePrincipal {
  deviceId: string;
}
