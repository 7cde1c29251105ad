// SQL for OAuth clients, authorization requests, grants and tokens.
import { prepared } from '../../db/prepared.ts';
import { sql, type ExpressionBuilder, type Kysely, type Updateable } from 'kysely';
import { transact } from '../../db/transaction.ts';
import { isPostgres } from '../../db/migrations/dialect.ts';
import type { DB, Executor } from '../../db/schema.ts';
import type { OAuthClientsTable, OAuthGrantsTable, OAuthRequestsTable, OAuthTokensTable } from './tables.ts';

const findAccessCredential = prepared((ex, p: { tokenHash: string }) =>
  ex
    .selectFrom('oauth_tokens')
    .innerJoin('organizations', 'organizations.id', 'oauth_tokens.organization_id')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_tokens.client_id')
    .select([
      'oauth_tokens.id',
      'oauth_tokens.token_hash',
      'oauth_tokens.prefix',
      'oauth_tokens.scope',
      'oauth_tokens.resource',
      'oauth_tokens.created_at',
      'oauth_tokens.expires_at',
      'oauth_tokens.client_id',
      'oauth_clients.client_name',
      'organizations.id as organization_id',
      'organizations.name as organization_name',
      'organizations.status as organization_status',
    ])
    .where('oauth_tokens.token_hash', '=', p.tokenHash)
    .where('oauth_tokens.kind', '=', 'access')
    .where('oauth_tokens.revoked_at', 'is', null),
);

/** A client no grant was ever made for. */
const hasNoGrant = ({ not, exists, selectFrom }: ExpressionBuilder<DB, 'oauth_clients'>) =>
  not(
    exists(
      selectFrom('oauth_grants').select('oauth_grants.id').whereRef('oauth_grants.client_id', '=', 'oauth_clients.id'),
    ),
  );

/** The PostgreSQL channel on which a revocation reaches every process. */
export const REVOCATIONS_CHANNEL = 'cellgate_oauth_revocations';

export class OAuthRepository {
  private readonly revocationListeners: (() => void)[] = [];
  readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  findClient(id: string) {
    return this.db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertClient(row: OAuthClientsTable): Promise<void> {
    await this.db.insertInto('oauth_clients').values(row).execute();
  }

  /** Caches a fetched Client ID Metadata Document (created, or refreshed in place). */
  async upsertDocumentClient(row: OAuthClientsTable): Promise<void> {
    const { id: _id, created_at: _created, ...changes } = row;
    await this.db
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(changes))
      .execute();
  }

  async insertRequest(row: OAuthRequestsTable): Promise<void> {
    await this.db.insertInto('oauth_requests').values(row).execute();
  }

  findRequest(ex: Executor, id: string) {
    return ex.selectFrom('oauth_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findRequestByCode(codeHash: string) {
    return this.db.selectFrom('oauth_requests').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  }

  /** Binds a request to the organization that first reads it; false when another one holds it. */
  async claimRequest(id: string, organizationId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_requests')
      .set({ organization_id: organizationId })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Decides a pending request of (or unclaimed by) this organization; false when it was not pending. */
  async decideRequest(id: string, organizationId: string, changes: Updateable<OAuthRequestsTable>): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_requests')
      .set({ ...changes, organization_id: organizationId })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Marks a code used; false when it already was (a replay). */
  async useCode(ex: Executor, requestId: string, now: string): Promise<boolean> {
    const result = await ex
      .updateTable('oauth_requests')
      .set({ code_used_at: now })
      .where('id', '=', requestId)
      .where('code_used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async setRequestGrant(ex: Executor, requestId: string, grantId: string): Promise<void> {
    await ex.updateTable('oauth_requests').set({ grant_id: grantId }).where('id', '=', requestId).execute();
  }

  async insertGrant(ex: Executor, row: OAuthGrantsTable): Promise<void> {
    await ex.insertInto('oauth_grants').values(row).execute();
  }

  findGrant(ex: Executor, id: string) {
    return ex.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listActiveGrants(organizationId: string, beforeId: string | null, limit: number) {
    let query = this.db
      .selectFrom('oauth_grants')
      .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
      .select([
        'oauth_grants.id',
        'oauth_grants.client_id',
        'oauth_clients.client_name',
        'oauth_grants.scope',
        'oauth_grants.resource',
        'oauth_grants.created_at',
      ])
      .where('oauth_grants.organization_id', '=', organizationId)
      .where('oauth_grants.revoked_at', 'is', null);
    if (beforeId) query = query.where('oauth_grants.id', '<', beforeId);
    return query.orderBy('oauth_grants.id', 'desc').limit(limit).execute();
  }

  /** Revokes a grant and every token issued under it; false when it was already revoked. */
  async revokeGrant(
    ex: Executor,
    grantId: string,
    reason: string,
    now: string,
    organizationId?: string,
  ): Promise<boolean> {
    let query = ex
      .updateTable('oauth_grants')
      .set({ revoked_at: now, revoked_reason: reason })
      .where('id', '=', grantId)
      .where('revoked_at', 'is', null);
    if (organizationId) query = query.where('organization_id', '=', organizationId);
    const result = await query.executeTakeFirst();
    await ex
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('grant_id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
    await this.announceRevocation(ex);
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Deletes expired requests and clients without a grant (contract §8), in batches so no delete
   * holds its table long. A client's leftover requests go with it (they reference it).
   */
  async prune(at: {
    now: string;
    codesBefore: string;
    registeredBefore: string;
  }): Promise<{ requests: number; clients: number }> {
    const BATCH = 500;
    let requests = 0;
    for (;;) {
      const ids = (
        await this.db
          .selectFrom('oauth_requests')
          .select('id')
          .where('expires_at', '<=', at.now)
          .where((eb) => eb.or([eb('code_expires_at', 'is', null), eb('code_expires_at', '<=', at.codesBefore)]))
          .limit(BATCH)
          .execute()
      ).map((r) => r.id);
      if (ids.length === 0) break;
      const result = await this.db.deleteFrom('oauth_requests').where('id', 'in', ids).executeTakeFirst();
      requests += Number(result.numDeletedRows);
      if (ids.length < BATCH) break;
    }
    let clients = 0;
    for (;;) {
      const ids = (
        await this.db
          .selectFrom('oauth_clients')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([eb('kind', '=', 'registered'), eb('created_at', '<=', at.registeredBefore)]),
              eb.and([eb('kind', '=', 'metadata_document'), eb('expires_at', '<=', at.now)]),
            ]),
          )
          .where(hasNoGrant)
          // A user in the middle of consenting keeps the client until the request expires.
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('oauth_requests')
                  .select('oauth_requests.id')
                  .whereRef('oauth_requests.client_id', '=', 'oauth_clients.id')
                  .where('oauth_requests.expires_at', '>', at.now),
              ),
            ),
          )
          .limit(BATCH)
          .execute()
      ).map((r) => r.id);
      if (ids.length === 0) break;
      const deleted = await transact(this.db, async (tx) => {
        const unused = ({ not, exists, selectFrom }: ExpressionBuilder<DB, 'oauth_requests'>) =>
          not(
            exists(
              selectFrom('oauth_grants')
                .select('oauth_grants.id')
                .whereRef('oauth_grants.client_id', '=', 'oauth_requests.client_id'),
            ),
          );
        await tx.deleteFrom('oauth_requests').where('client_id', 'in', ids).where(unused).execute();
        // Checked again in the delete: a grant made since the select keeps its client.
        const result = await tx.deleteFrom('oauth_clients').where('id', 'in', ids).where(hasNoGrant).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
      clients += deleted;
      if (ids.length < BATCH) break;
    }
    return { requests, clients };
  }

  /** Registers what to do in this process when a token or grant is revoked. */
  onRevocation(listener: () => void): void {
    this.revocationListeners.push(listener);
  }

  /**
   * Tells this process at once, and on PostgreSQL every other process at commit (NOTIFY on
   * REVOCATIONS_CHANNEL, which module.ts LISTENs to), that cached tokens may be revoked.
   */
  private async announceRevocation(ex: Executor): Promise<void> {
    for (const listener of this.revocationListeners) listener();
    if (isPostgres(this.db)) await sql`select pg_notify(${REVOCATIONS_CHANNEL}, '')`.execute(ex);
  }

  async insertTokens(ex: Executor, rows: OAuthTokensTable[]): Promise<void> {
    await ex.insertInto('oauth_tokens').values(rows).execute();
  }

  findToken(tokenHash: string) {
    return this.db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Marks a refresh token exchanged; false when it already was, or was revoked. */
  async useRefreshToken(ex: Executor, id: string, now: string): Promise<boolean> {
    const result = await ex
      .updateTable('oauth_tokens')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async revokeToken(id: string, now: string): Promise<void> {
    await this.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    await this.announceRevocation(this.db);
  }

  /** An unrevoked access token with its organization and client; runs on every request it makes: precompiled. */
  findAccessCredential(tokenHash: string) {
    return findAccessCredential.first(this.db, { tokenHash });
  }
}
