// SQL for the console's sign-in codes and sessions (a session is read with its organization).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ConsoleTables } from './tables.ts';

export class ConsoleRepository {
  readonly db: Kysely<DB & ConsoleTables>;
  constructor(db: Kysely<DB>) {
    this.db = db.withTables<ConsoleTables>();
  }

  async replaceCode(row: ConsoleTables['console_codes']): Promise<void> {
    const { organization_id: _id, ...changes } = row;
    await this.db
      .insertInto('console_codes')
      .values(row)
      .onConflict((oc) => oc.column('organization_id').doUpdateSet(changes))
      .execute();
  }

  findCode(organizationId: string) {
    return this.db
      .selectFrom('console_codes')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  /** Counts a wrong attempt while attempts remain; 0 when the code was already spent. */
  async countWrongAttempt(organizationId: string, maxAttempts: number): Promise<number> {
    const result = await this.db
      .updateTable('console_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('organization_id', '=', organizationId)
      .where('attempts', '<', maxAttempts)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Takes the code for a sign-in; false when another request took it first. */
  async takeCode(organizationId: string, codeHash: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('console_codes')
      .where('organization_id', '=', organizationId)
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async insertSession(row: ConsoleTables['console_sessions'], now: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
    await this.db.insertInto('console_sessions').values(row).execute();
  }

  /** A live session with its organization. */
  findSession(tokenHash: string, now: string) {
    return this.db
      .selectFrom('console_sessions')
      .innerJoin('organizations', 'organizations.id', 'console_sessions.organization_id')
      .select([
        'console_sessions.token_hash as tokenHash',
        'console_sessions.organization_id as organizationId',
        'console_sessions.csrf_token as csrfToken',
        'organizations.name as organizationName',
        'organizations.email as organizationEmail',
        'organizations.status',
      ])
      .where('console_sessions.token_hash', '=', tokenHash)
      .where('console_sessions.expires_at', '>', now)
      .executeTakeFirst();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
  }
}
