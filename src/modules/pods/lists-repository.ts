// SQL for contact lists and their numbers.
import type { Executor } from '../../db/schema.ts';
import { chunks, Repository } from './repository.ts';
import type { Scope } from './scope.ts';
import type { ContactListsTable } from './tables.ts';

export class ListsRepository extends Repository {
  async insert(ex: Executor, row: ContactListsTable): Promise<void> {
    await ex.insertInto('contact_lists').values(row).execute();
  }

  findInScope(ex: Executor, scope: Scope, id: string) {
    return ex
      .selectFrom('contact_lists')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', scope.organizationId)
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id)
      .executeTakeFirst();
  }

  /** A list of the organization under any of its cells or pods. */
  findOwned(organizationId: string, id: string) {
    return this.db
      .selectFrom('contact_lists')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  list(scope: Scope, beforeId: string | null, limit: number) {
    let query = this.db
      .selectFrom('contact_lists')
      .selectAll()
      .where(scope.kind === 'cell' ? 'cell_id' : 'pod_id', '=', scope.id);
    if (beforeId) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  /** Changes the list's row (which also holds its lock until the transaction ends on PostgreSQL). */
  async touch(
    ex: Executor,
    id: string,
    changes: Partial<Pick<ContactListsTable, 'name' | 'number_count' | 'updated_at'>>,
  ): Promise<void> {
    await ex.updateTable('contact_lists').set(changes).where('id', '=', id).execute();
  }

  /** Deletes every list of the scope with its numbers; how many lists and numbers they were. */
  async removeAllIn(ex: Executor, scope: Scope): Promise<{ lists: number; numbers: number }> {
    const column = scope.kind === 'cell' ? 'cell_id' : 'pod_id';
    const ids = ex.selectFrom('contact_lists').select('id').where(column, '=', scope.id);
    const numbers = await ex.deleteFrom('contact_list_numbers').where('list_id', 'in', ids).executeTakeFirst();
    const lists = await ex.deleteFrom('contact_lists').where(column, '=', scope.id).executeTakeFirst();
    return { lists: Number(lists.numDeletedRows), numbers: Number(numbers.numDeletedRows) };
  }

  /** Deletes the list and its numbers; how many numbers it held. */
  async remove(ex: Executor, id: string): Promise<number> {
    const numbers = await ex.deleteFrom('contact_list_numbers').where('list_id', '=', id).executeTakeFirst();
    await ex.deleteFrom('contact_lists').where('id', '=', id).execute();
    return Number(numbers.numDeletedRows);
  }

  async numbersOf(ex: Executor, listId: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('contact_list_numbers')
      .select('number')
      .where('list_id', '=', listId)
      .orderBy('number')
      .execute();
    return rows.map((row) => row.number);
  }

  /** Adds the numbers the list lacks (duplicates are ignored). */
  async addNumbers(ex: Executor, listId: string, numbers: readonly string[], now: string): Promise<void> {
    for (const chunk of chunks(numbers)) {
      await ex
        .insertInto('contact_list_numbers')
        .values(chunk.map((number) => ({ list_id: listId, number, created_at: now })))
        .onConflict((oc) => oc.columns(['list_id', 'number']).doNothing())
        .execute();
    }
  }

  async removeNumbers(ex: Executor, listId: string, numbers: readonly string[]): Promise<void> {
    for (const chunk of chunks(numbers))
      await ex.deleteFrom('contact_list_numbers').where('list_id', '=', listId).where('number', 'in', chunk).execute();
  }

  async countNumbers(ex: Executor, listId: string): Promise<number> {
    const row = await ex
      .selectFrom('contact_list_numbers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('list_id', '=', listId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
