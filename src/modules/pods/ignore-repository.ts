// SQL for ignored participants: one row per (scope, participant), the scope a cell or a pod.
import type { Executor } from '../../db/schema.ts';
import { Repository } from './repository.ts';
import type { IgnoredParticipantsTable } from './tables.ts';

export class IgnoreRepository extends Repository {
  /** True when added, false when the participant was already ignored in the scope. */
  async add(ex: Executor, row: IgnoredParticipantsTable): Promise<boolean> {
    const result = await ex
      .insertInto('ignored_participants')
      .values(row)
      .onConflict((oc) => oc.columns(['scope_id', 'participant']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  find(ex: Executor, scopeId: string, participant: string) {
    return ex
      .selectFrom('ignored_participants')
      .selectAll()
      .where('scope_id', '=', scopeId)
      .where('participant', '=', participant)
      .executeTakeFirst();
  }

  /** True when the participant was on the list. */
  async remove(ex: Executor, scopeId: string, participant: string): Promise<boolean> {
    const result = await ex
      .deleteFrom('ignored_participants')
      .where('scope_id', '=', scopeId)
      .where('participant', '=', participant)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /** Newest first; `after` is the (created_at, participant) of the previous page's last row. */
  list(scopeId: string, after: { at: string; participant: string } | null, limit: number) {
    let query = this.db
      .selectFrom('ignored_participants')
      .select(['participant', 'created_at'])
      .where('scope_id', '=', scopeId);
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.at),
          eb.and([eb('created_at', '=', after.at), eb('participant', '<', after.participant)]),
        ]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('participant', 'desc').limit(limit).execute();
  }

  /** The scopes of the organization that ignore this participant (off the sender index). */
  async scopesIgnoring(ex: Executor, organizationId: string, participant: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('ignored_participants')
      .select('scope_id')
      .where('organization_id', '=', organizationId)
      .where('participant', '=', participant)
      .execute();
    return rows.map((row) => row.scope_id);
  }

  async participantsOf(scopeIds: readonly string[]): Promise<string[]> {
    const rows = await this.db
      .selectFrom('ignored_participants')
      .select('participant')
      .distinct()
      .where('scope_id', 'in', scopeIds)
      .execute();
    return rows.map((row) => row.participant);
  }
}
