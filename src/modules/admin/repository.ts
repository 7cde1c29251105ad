// SQL for admin tokens, the dev mail outbox and the operator audit log.
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { AdminTokensTable, DevOutboxTable, OperatorAuditTable } from './tables.ts';

export class AdminRepository {
  private readonly db: Kysely<DB>;
  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  private activeTokens() {
    return this.db.selectFrom('admin_tokens').where('revoked_at', 'is', null);
  }

  findActiveToken(tokenHash: string) {
    return this.activeTokens().selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async isTokenActive(id: string): Promise<boolean> {
    return (await this.activeTokens().select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async insertToken(row: AdminTokensTable): Promise<void> {
    await this.db.insertInto('admin_tokens').values(row).execute();
  }

  async insertMail(row: DevOutboxTable): Promise<void> {
    await this.db.insertInto('dev_outbox').values(row).execute();
  }

  listMail(to: string | undefined, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('dev_outbox').selectAll();
    if (to) query = query.where('to_address', '=', to);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  async tokenLabel(ex: Executor, id: string): Promise<string | null | undefined> {
    const row = await ex.selectFrom('admin_tokens').select('label').where('id', '=', id).executeTakeFirst();
    return row?.label;
  }

  async insertAudit(ex: Executor, row: OperatorAuditTable): Promise<void> {
    await ex.insertInto('operator_audit').values(row).execute();
  }

  listAudit(targetId: string | undefined, beforeId: string | null, limit: number) {
    let query = this.db.selectFrom('operator_audit').selectAll();
    if (targetId) query = query.where('target_id', '=', targetId);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }
}
