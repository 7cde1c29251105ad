export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface OAuthClientsTable {
  /** ocl_... for registered clients; the https URL of a Client ID Metadata Document. */
  id: string;
  kind: 'registered' | 'metadata_document';
  secret_hash: string | null;
  token_endpoint_auth_method: ClientAuthMethod;
  client_name: string | null;
  client_uri: string | null;
  /** JSON array of redirect URIs. */
  redirect_uris: string;
  /** JSON array: authorization_code, refresh_token. */
  grant_types: string;
  scope: string | null;
  created_at: string;
  updated_at: string;
  /** When a metadata document is fetched again; null for registered clients. */
  expires_at: string | null;
}

export interface OAuthRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  /** Space-separated scopes. */
  scope: string;
  state: string | null;
  code_challenge: string;
  resource: string;
  status: 'pending' | 'approved' | 'denied';
  organization_id: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  code_hash: string | null;
  code_expires_at: string | null;
  code_used_at: string | null;
  grant_id: string | null;
}

export interface OAuthGrantsTable {
  id: string;
  organization_id: string;
  client_id: string;
  scope: string;
  resource: string;
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface OAuthTokensTable {
  id: string;
  kind: 'access' | 'refresh';
  token_hash: string;
  prefix: string;
  grant_id: string;
  organization_id: string;
  client_id: string;
  scope: string;
  resource: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
}
