// SQL for the console's sign-in codes and sessions (a session is read with its organization).
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { EmailedCodeStore } from '../../db/emailed-code.ts';
import type { ConsoleTables } from './tables.ts';

export class ConsoleRepository {
  readonly db: Kysely<DB & ConsoleTables>;
  readonly codes: EmailedCodeStore<DB & ConsoleTables>;
  constructor(db: Kysely<DB>) {
    this.db = db.withTables<ConsoleTables>();
    this.codes = new EmailedCodeStore(this.db, 'console_codes');
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
