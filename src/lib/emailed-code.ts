// Emailed 6-digit codes (organizations' sign-up verification, the console's sign-in): 10 minutes,
// 5 attempts, stored as the hash of `${organization_id}:${code}`, one live code per organization.
// The tables differ (verification_codes, console_codes); the protocol is this one.
import { constantTimeEqualHex, sha256Hex, sixDigitCode } from './secrets.ts';

export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_ATTEMPTS = 5;

export interface EmailedCodeRow {
  organization_id: string;
  code_hash: string;
  attempts: number;
  expires_at: string;
  created_at: string;
}

/** What a presented code is: right and live, wrong, past its 10 minutes, or spent (no code, attempts used up). */
export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'spent';

export const codeHash = (organizationId: string, code: string) => sha256Hex(`${organizationId}:${code}`);

export interface EmailedCode {
  /** The 6 digits to mail. */
  code: string;
  expiresAt: string;
  /** The row that replaces the organization's earlier code. */
  rowFor: (organizationId: string) => EmailedCodeRow;
}

/** A new code, issued at `now`. */
export function newEmailedCode(now: Date): EmailedCode {
  const code = sixDigitCode();
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS).toISOString();
  return {
    code,
    expiresAt,
    rowFor: (organizationId) => ({
      organization_id: organizationId,
      code_hash: codeHash(organizationId, code),
      attempts: 0,
      expires_at: expiresAt,
      created_at: now.toISOString(),
    }),
  };
}

/**
 * Checks `code` against the stored row. A wrong code of a live row counts an attempt through
 * `countWrongAttempt` (an update guarded by attempts < max, so concurrent guesses cannot pass the
 * limit); when it changed no row, the code was spent meanwhile.
 */
export async function checkEmailedCode(
  row: EmailedCodeRow | undefined,
  code: string,
  now: Date,
  countWrongAttempt: (maxAttempts: number) => Promise<number>,
): Promise<CodeCheck> {
  if (!row || row.attempts >= CODE_ATTEMPTS) return 'spent';
  if (row.expires_at <= now.toISOString()) return 'expired';
  if (constantTimeEqualHex(row.code_hash, codeHash(row.organization_id, code))) return 'ok';
  return (await countWrongAttempt(CODE_ATTEMPTS)) === 0 ? 'spent' : 'wrong';
}
