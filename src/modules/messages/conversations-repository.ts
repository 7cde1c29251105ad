// SQL for conversations: one row per (cell, participant), ordered by latest activity.
import { CompiledQuery, type Kysely } from 'kysely';
import { compiledOnce } from './compiled.ts';
import type { DB, Executor } from '../../db/schema.ts';

export class ConversationsRepository {
  readonly db: Kysely<DB>;
  private touchSql: string | undefined;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /**
   * Creates the conversation or moves it to `messageId` in one statement; its id. The update is
   * guarded so a message committed late by another process never moves it backwards.
   */
  async touch(ex: Executor, input: { newId: string; organizationId: string; cellId: string; participant: string; messageId: string; at: string }): Promise<string> {
    const values = [input.newId, input.organizationId, input.cellId, input.participant, input.messageId, input.at, input.at, input.at];
    // On every send: Kysely builds the SQL once, later calls only bind values.
    this.touchSql ??= compiledOnce(this.touchQuery(ex, values), values);
    const { rows } = await ex.executeQuery<{ id: string }>(CompiledQuery.raw(this.touchSql, values));
    if (rows[0]) return rows[0].id;
    const existing = await ex.selectFrom('conversations').select('id').where('cell_id', '=', input.cellId).where('participant', '=', input.participant).executeTakeFirstOrThrow();
    return existing.id;
  }

  private touchQuery(ex: Executor, [id, organizationId, cellId, participant, messageId, at]: string[]) {
    return ex
      .insertInto('conversations')
      .values({
        id,
        organization_id: organizationId,
        cell_id: cellId,
        participant,
        last_message_id: messageId,
        last_message_at: at,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc
          .columns(['cell_id', 'participant'])
          .doUpdateSet((eb) => ({
            last_message_id: eb.ref('excluded.last_message_id'),
            last_message_at: eb.ref('excluded.last_message_at'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where((eb) => eb.or([eb('conversations.last_message_id', 'is', null), eb('conversations.last_message_id', '<', eb.ref('excluded.last_message_id'))])),
      )
      .returning('id');
  }

  find(cellId: string, participant: string) {
    return this.db.selectFrom('conversations').selectAll().where('cell_id', '=', cellId).where('participant', '=', participant).executeTakeFirst();
  }

  findInCell(cellId: string, id: string) {
    return this.db.selectFrom('conversations').selectAll().where('id', '=', id).where('cell_id', '=', cellId).executeTakeFirst();
  }

  /** Newest activity first; `after` is the (last_message_at, id) of the previous page's last row. */
  list(cellId: string, after: { at: string; id: string } | null, limit: number) {
    let query = this.db.selectFrom('conversations').selectAll().where('cell_id', '=', cellId);
    if (after) {
      query = query.where((eb) => eb.or([eb('last_message_at', '<', after.at), eb.and([eb('last_message_at', '=', after.at), eb('id', '<', after.id)])]));
    }
    return query.orderBy('last_message_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }
}
