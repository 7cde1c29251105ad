// SQL for conversations: one row per (cell, participant), ordered by latest activity.
import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';

interface Touch {
  newId: string;
  organizationId: string;
  cellId: string;
  participant: string;
  messageId: string;
  at: string;
}

// Run on every send and every inbound message.
const upsertConversation = prepared((ex, input: Touch) =>
  ex
    .insertInto('conversations')
    .values({
      id: input.newId,
      organization_id: input.organizationId,
      cell_id: input.cellId,
      participant: input.participant,
      last_message_id: input.messageId,
      last_message_at: input.at,
      created_at: input.at,
      updated_at: input.at,
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
    .returning('id'));

export class ConversationsRepository {
  readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /**
   * Creates the conversation or moves it to `messageId` in one statement; its id. The update is
   * guarded so a message committed late by another process never moves it backwards.
   */
  async touch(ex: Executor, input: Touch): Promise<string> {
    const touched = await upsertConversation.first(ex, input);
    if (touched) return touched.id;
    const existing = await ex.selectFrom('conversations').select('id').where('cell_id', '=', input.cellId).where('participant', '=', input.participant).executeTakeFirstOrThrow();
    return existing.id;
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
