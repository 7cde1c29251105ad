// Emailed 6-digit codes (organizations' sign-up verification, the console's sign-in): 10 minutes,
// 5 attempts, stored as the hash of `${organization_id}:${code}`, one live code per organization.
// The tables differ (verification_codes, console_codes: each module owns its own and names it to
// EmailedCodeStore); the protocol and its SQL are these.
import type { Kysely } from 'kysely';
import { constantTimeEqualHex, sha256Hex, sixDigitCode } from '../lib/secrets.ts';

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

/** The store's view of its owner's code table: one name for the types, the owner's at run time. */
interface CodeTables {
  emailed_codes: EmailedCodeRow;
}

/** One module's code table (`DB`: the owning repository's database type, transactions included). */
export class EmailedCodeStore<DB> {
  private readonly db: Kysely<DB>;
  private readonly table: 'emailed_codes';
  constructor(db: Kysely<DB>, table: keyof DB & string) {
    this.db = db;
    this.table = table as 'emailed_codes';
  }

  private codes(ex: Kysely<DB> = this.db) {
    return ex as unknown as Kysely<CodeTables>;
  }

  /** Stores a newly issued code in place of the organization's earlier one. */
  async replace(ex: Kysely<DB>, row: EmailedCodeRow): Promise<void> {
    const { organization_id: _id, ...changes } = row;
    await this.codes(ex)
      .insertInto(this.table)
      .values(row)
      .onConflict((oc) => oc.column('organization_id').doUpdateSet(changes))
      .execute();
  }

  /**
   * Checks `code` against the organization's stored code. A wrong code of a live row counts an
   * attempt (an update guarded by attempts < max, so concurrent guesses cannot pass the limit);
   * when it changed no row, the code was spent meanwhile.
   */
  async check(organizationId: string, code: string, now: Date): Promise<CodeCheck> {
    const row = await this.codes()
      .selectFrom(this.table)
      .selectAll()
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    if (!row || row.attempts >= CODE_ATTEMPTS) return 'spent';
    if (row.expires_at <= now.toISOString()) return 'expired';
    if (constantTimeEqualHex(row.code_hash, codeHash(row.organization_id, code))) return 'ok';
    const counted = await this.codes()
      .updateTable(this.table)
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('organization_id', '=', organizationId)
      .where('attempts', '<', CODE_ATTEMPTS)
      .executeTakeFirst();
    return Number(counted.numUpdatedRows) === 0 ? 'spent' : 'wrong';
  }

  /** Takes the (checked) code for its single use; false when another request took it first. */
  async take(organizationId: string, code: string): Promise<boolean> {
    const result = await this.codes()
      .deleteFrom(this.table)
      .where('organization_id', '=', organizationId)
      .where('code_hash', '=', codeHash(organizationId, code))
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Drops the organization's code, whatever it is. */
  async delete(ex: Kysely<DB>, organizationId: string): Promise<void> {
    await this.codes(ex).deleteFrom(this.table).where('organization_id', '=', organizationId).execute();
  }
}
