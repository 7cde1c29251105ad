// The operator console's sessions (migration 0021): one row per signed-in browser.
export interface OperatorSessionsTable {
  /** sha256 of the cookie's value. */
  token_hash: string;
  /** The admin token that signed in (adm_... or adm_bootstrap): its revocation ends the session. */
  admin_token_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export type OperatorTables = {
  operator_sessions: OperatorSessionsTable;
};
