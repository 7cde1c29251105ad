// SQL for organizations, API keys and one-time codes (verification_codes, through EmailedCodeStore).
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import { EmailedCodeStore } from '../../db/emailed-code.ts';
import type { ApiKeysTable, OrganizationsTable } from './tables.ts';

export class OrganizationsRepository {
  readonly db: Kysely<DB>;
  readonly codes: EmailedCodeStore<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
    this.codes = new EmailedCodeStore(db, 'verification_codes');
  }

  findByEmail(ex: Executor, email: string) {
    return ex.selectFrom('organizations').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findById(id: string) {
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertOrganization(ex: Executor, row: OrganizationsTable): Promise<void> {
    await ex.insertInto('organizations').values(row).execute();
  }

  async setStatus(ex: Executor, id: string, status: OrganizationsTable['status'], now: string): Promise<void> {
    await ex
      .updateTable('organizations')
      .set({ status, updated_at: now, ...(status === 'active' ? { verified_at: now } : {}) })
      .where('id', '=', id)
      .execute();
  }

  async insertKey(ex: Executor, row: ApiKeysTable): Promise<void> {
    await ex.insertInto('api_keys').values(row).execute();
  }

  /**
   * Holds the organization's row until the transaction ends (a row lock on PostgreSQL; SQLite's
   * writes are serial anyway): what is counted next stays true until the insert.
   */
  async lockOrganization(ex: Executor, id: string): Promise<void> {
    await ex
      .updateTable('organizations')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', id)
      .execute();
  }

  /** The organization's active (unrevoked) keys. */
  private activeKeys(ex: Executor, organizationId: string) {
    return ex.selectFrom('api_keys').where('organization_id', '=', organizationId).where('revoked_at', 'is', null);
  }

  async countActiveKeys(ex: Executor, organizationId: string): Promise<number> {
    const row = await this.activeKeys(ex, organizationId)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async revokeAllKeys(ex: Executor, organizationId: string, now: string): Promise<void> {
    await ex
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('organization_id', '=', organizationId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Revokes one key unless it is the organization's last active one; the number revoked. */
  async revokeKeyUnlessLast(ex: Executor, organizationId: string, keyId: string, now: string): Promise<number> {
    const result = await ex
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', keyId)
      .where('organization_id', '=', organizationId)
      .where('revoked_at', 'is', null)
      .where((eb) =>
        eb(
          eb
            .selectFrom('api_keys as other')
            .select((o) => o.fn.countAll().as('n'))
            .where('other.organization_id', '=', organizationId)
            .where('other.revoked_at', 'is', null),
          '>',
          1,
        ),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  findActiveKey(organizationId: string, keyId: string) {
    return this.activeKeys(this.db, organizationId).selectAll().where('id', '=', keyId).executeTakeFirst();
  }

  listActiveKeys(organizationId: string, afterId: string | null, limit: number) {
    let query = this.activeKeys(this.db, organizationId).selectAll();
    if (afterId) query = query.where('id', '<', afterId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  findCredential(keyHash: string) {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
      .select([
        'api_keys.id as key_id',
        'api_keys.prefix',
        'api_keys.key_hash',
        'api_keys.created_at',
        'api_keys.last_used_at',
        'organizations.id as organization_id',
        'organizations.name as organization_name',
        'organizations.status as organization_status',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  async touchKey(keyId: string, now: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', keyId).execute();
  }
}
