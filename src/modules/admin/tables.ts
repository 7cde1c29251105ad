// The operator's tables: admin tokens (hashed) and the dev outbox of mails sent without SMTP.
export interface AdminTokensTable {
  id: string;
  label: string | null;
  prefix: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface DevOutboxTable {
  id: string;
  to_address: string;
  subject: string;
  text: string;
  created_at: string;
}

export interface AdminTables {
  admin_tokens: AdminTokensTable;
  dev_outbox: DevOutboxTable;
}
