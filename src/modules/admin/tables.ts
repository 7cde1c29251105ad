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

/** One operator action: who (admin token), when, what (action on a target) and why. */
export interface OperatorAuditTable {
  id: string;
  admin_token_id: string;
  admin_token_label: string | null;
  action: string;
  target_type: string;
  target_id: string;
  reason: string | null;
  /** JSON object with the action's particulars (amount, tier, months), or null. */
  detail: string | null;
  created_at: string;
}

export interface AdminTables {
  admin_tokens: AdminTokensTable;
  dev_outbox: DevOutboxTable;
  operator_audit: OperatorAuditTable;
}
