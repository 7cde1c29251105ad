// SQL for drafts.
import { sql, type Updateable } from 'kysely';
import { preparedRows } from '../../db/prepared.ts';
import type { Executor } from '../../db/schema.ts';
import { Repository } from './repository.ts';
import type { Scope } from './scope.ts';
import type { DraftsTable, DraftStatus } from './tables.ts';

export interface PodDraftRef {
  organizationId: string;
  podId: string;
  draftId: string;
}

// Run for every batch of pod draft sends: the drafts of live pods, in one statement.
const findPodDrafts = preparedRows((ex, refs: PodDraftRef[]) =>
  ex
    .selectFrom('drafts')
    .innerJoin('pods', 'pods.id', 'drafts.pod_id')
    .selectAll('drafts')
    .where('pods.deleted_at', 'is', null)
    .where((eb) =>
      eb.or(
        refs.map((ref) =>
          eb.and([
            eb('drafts.id', '=', ref.draftId),
            eb('drafts.pod_id', '=', ref.podId),
            eb('drafts.organization_id', '=', ref.organizationId),
          ]),
        ),
      ),
    ),
);

export interface SentDraft {
  id: string;
  messageId: string;
  at: string;
}

// Run in the transaction of every batch of draft sends: each draft gets its own message.
const markDraftsSent = preparedRows((ex, drafts: SentDraft[]) => {
  const perDraft = (value: (draft: SentDraft) => string) =>
    sql<string>`case ${sql.ref('id')} ${sql.join(
      drafts.map((draft) => sql`when ${draft.id} then ${value(draft)}`),
      sql` `,
    )} end`;
  const ids = drafts.map((draft) => draft.id);
  return ex
    .updateTable('drafts')
    .set({
      status: 'sent',
      message_id: perDraft((draft) => draft.messageId),
      updated_at: perDraft((draft) => draft.at),
    })
    .where('id', 'in', ids)
    .where('status', '=', 'draft')
    .returning(['id', 'organization_id']);
});

export class DraftsRepository extends Repository {
  async insert(ex: Executor, row: DraftsTable): Promise<void> {
    await ex.insertInto('drafts').values(row).execute();
  }

  /** Any draft of the organization with this client_id: a client_id is taken forever. */
  findByClientId(organizationId: string, clientId: string) {
    return this.db
      .selectFrom('drafts')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
  }

  findInScope(scope: Scope, id: string) {
    return this.db
      .selectFrom('drafts')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', scope.organizationId)
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id)
      .executeTakeFirst();
  }

  /** Those of the drafts that exist in their live pod of their organization. */
  async podDraftsAmong(refs: readonly PodDraftRef[]): Promise<DraftsTable[]> {
    return (await findPodDrafts(this.db, refs)).rows;
  }

  list(scope: Scope, status: DraftStatus | undefined, beforeId: string | null, limit: number) {
    let query = this.db
      .selectFrom('drafts')
      .selectAll()
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id);
    if (status) query = query.where('status', '=', status);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Changes a draft that is still a draft; the row, or undefined when it is not. */
  changeDraft(ex: Executor, id: string, changes: Updateable<DraftsTable>) {
    return ex
      .updateTable('drafts')
      .set(changes)
      .where('id', '=', id)
      .where('status', '=', 'draft')
      .returningAll()
      .executeTakeFirst();
  }

  /** Discards every draft of the scope still in `draft`; how many. */
  async discardAllIn(ex: Executor, scope: Scope, now: string): Promise<number> {
    const result = await ex
      .updateTable('drafts')
      .set({ status: 'discarded', updated_at: now })
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id)
      .where('status', '=', 'draft')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes the organization's `n` oldest discarded drafts (the index drafts_discarded reads them in order). */
  async deleteOldestDiscarded(ex: Executor, organizationId: string, n: number): Promise<void> {
    await ex
      .deleteFrom('drafts')
      .where(
        'id',
        'in',
        ex
          .selectFrom('drafts')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('status', '=', 'discarded')
          .orderBy('updated_at')
          .orderBy('id')
          .limit(n),
      )
      .execute();
  }

  /** Marks those of the drafts that are still drafts sent with their messages; those marked. */
  async markSent(ex: Executor, drafts: readonly SentDraft[]): Promise<{ id: string; organization_id: string }[]> {
    return (await markDraftsSent(ex, drafts)).rows;
  }
}
