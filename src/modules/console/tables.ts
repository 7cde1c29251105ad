import type { EmailedCodeRow } from '../../db/emailed-code.ts';

export type ConsoleTables = {
  console_codes: EmailedCodeRow;
  console_sessions: {
    /** sha256 of the cookie's value. */
    token_hash: string;
    organization_id: string;
    csrf_token: string;
    created_at: string;
    expires_at: string;
  };
};
