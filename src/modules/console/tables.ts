export interface ConsoleCodesTable {
  organization_id: string;
  /** sha256 of `${organization_id}:${code}`. */
  code_hash: string;
  attempts: number;
  expires_at: string;
  created_at: string;
}

export interface ConsoleSessionsTable {
  /** sha256 of the cookie's value. */
  token_hash: string;
  organization_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export type ConsoleTables = {
  console_codes: ConsoleCodesTable;
  console_sessions: ConsoleSessionsTable;
};
