// SQL for conversations: one row per (cell, participant), ordered by latest activity.
import type { Kysely } from 'kysely';
import { preparedRows } from '../../db/prepared.ts';
import type { DB, Executor } from '../../db/schema.ts';

export interface Touch {
  newId: string;
  organizationId: string;
  cellId: string;
  participant: string;
  messageId: string;
  at: string;
}

/** One string per (cell, participant). */
export const conversationKey = (cellId: string, participant: string) => `${cellId}\n${participant}`;
/** The key of a touch's conversation in the map touchAll answers. */
export const touchKey = (touch: Touch) => conversationKey(touch.cellId, touch.participant);

// Run for every batch of sends and every inbound message.
const upsertConversations = preparedRows((ex, touches: Touch[]) =>
  ex
    .insertInto('conversations')
    .values(
      touches.map((input) => ({
        id: input.newId,
        organization_id: input.organizationId,
        cell_id: input.cellId,
        participant: input.participant,
        last_message_id: input.messageId,
        last_message_at: input.at,
        created_at: input.at,
        updated_at: input.at,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['cell_id', 'participant'])
        .doUpdateSet((eb) => ({
          last_message_id: eb.ref('excluded.last_message_id'),
          last_message_at: eb.ref('excluded.last_message_at'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        .where((eb) =>
          eb.or([
            eb('conversations.last_message_id', 'is', null),
            eb('conversations.last_message_id', '<', eb.ref('excluded.last_message_id')),
          ]),
        ),
    )
    .returning(['id', 'cell_id', 'participant']),
);

export class ConversationsRepository {
  readonly db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.db = db;
  }

  /**
   * Creates each conversation or moves it to its newest message, in one statement; the ids, by
   * `touchKey`. The update is guarded so a message committed late by another process never moves
   * a conversation backwards.
   */
  async touchAll(ex: Executor, touches: readonly Touch[]): Promise<Map<string, string>> {
    // One row per conversation: an upsert may not change a row twice.
    const newest = new Map<string, Touch>();
    for (const touch of touches) {
      const key = touchKey(touch);
      const seen = newest.get(key);
      if (!seen || seen.messageId < touch.messageId) newest.set(key, touch);
    }
    // In key order, so concurrent batches of two processes lock rows in the same order.
    const { rows } = await upsertConversations(
      ex,
      [...newest.keys()].sort().map((key) => newest.get(key) as Touch),
    );
    const ids = new Map(rows.map((row) => [conversationKey(row.cell_id, row.participant), row.id]));
    for (const [key, touch] of newest) {
      if (ids.has(key)) continue;
      // Already at a later message: the guard left the row alone and RETURNING skipped it.
      const existing = await ex
        .selectFrom('conversations')
        .select('id')
        .where('cell_id', '=', touch.cellId)
        .where('participant', '=', touch.participant)
        .executeTakeFirstOrThrow();
      ids.set(key, existing.id);
    }
    return ids;
  }

  /** touchAll for one conversation; its id. */
  async touch(ex: Executor, input: Touch): Promise<string> {
    return (await this.touchAll(ex, [input])).get(touchKey(input)) as string;
  }

  find(cellId: string, participant: string) {
    return this.db
      .selectFrom('conversations')
      .selectAll()
      .where('cell_id', '=', cellId)
      .where('participant', '=', participant)
      .executeTakeFirst();
  }

  findInCell(cellId: string, id: string) {
    return this.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', '=', id)
      .where('cell_id', '=', cellId)
      .executeTakeFirst();
  }

  /** Newest activity first; `after` is the (last_message_at, id) of the previous page's last row. */
  list(
    cellId: string,
    after: { at: string; id: string } | null,
    limit: number,
    hiddenParticipants: readonly string[] = [],
  ) {
    let query = this.db.selectFrom('conversations').selectAll().where('cell_id', '=', cellId);
    if (hiddenParticipants.length > 0) query = query.where('participant', 'not in', hiddenParticipants);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('last_message_at', '<', after.at),
          eb.and([eb('last_message_at', '=', after.at), eb('id', '<', after.id)]),
        ]),
      );
    }
    return query.orderBy('last_message_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }
}
