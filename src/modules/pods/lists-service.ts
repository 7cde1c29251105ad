// Contact lists (contract §5) under a cell or a pod: named lists of up to 10,000 E.164 numbers,
// the targets of broadcasts. Numbers are added and removed in sets; every number is validated
// first and a bad one, reported by its index, leaves the list unchanged.
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, orNotFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { ListsRepository } from './lists-repository.ts';
import { normalizeNumbers } from './numbers.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { scopeColumns, type Scope } from './scope.ts';
import type { ContactListsTable } from './tables.ts';
import { listSummaryView, listView } from './views.ts';

export const MAX_LIST_NUMBERS = 10_000;

const tooMany = (count: number) =>
  new ApiError(
    'invalid_request',
    `A list holds at most ${MAX_LIST_NUMBERS.toLocaleString('en-US')} numbers; this change would make ${count}.`,
    {
      errors: [{ field: 'numbers', code: 'too_many', message: `A list holds at most ${MAX_LIST_NUMBERS} numbers.` }],
    },
  );

export class ListsService {
  private readonly repo: ListsRepository;
  private readonly clock: Clock;
  private readonly storedCaps: StoredCaps;

  constructor(deps: { repo: ListsRepository; clock: Clock; storedCaps: StoredCaps }) {
    ({ repo: this.repo, clock: this.clock, storedCaps: this.storedCaps } = deps);
  }

  async create(scope: Scope, input: { name: string; numbers?: string[] }) {
    const numbers = normalizeNumbers('numbers', input.numbers ?? []);
    const now = this.clock.now();
    const at = now.toISOString();
    const row: ContactListsTable = {
      id: newId('lst', this.clock, now),
      organization_id: scope.organizationId,
      ...scopeColumns(scope),
      name: input.name,
      number_count: numbers.length,
      created_at: at,
      updated_at: at,
    };
    return transact(this.repo.db, async (tx) => {
      // The organization's caps on lists and on numbers in all: a list that would pass either is refused whole.
      await this.storedCaps.take(tx, 'contact_lists', scope.organizationId);
      await this.storedCaps.take(tx, 'list_numbers', scope.organizationId, numbers.length);
      await this.repo.insert(tx, row);
      await this.repo.addNumbers(tx, row.id, numbers, at);
      return listView(row, await this.repo.numbersOf(tx, row.id));
    });
  }

  async list(scope: Scope, query: PageQuery) {
    const { items, next_cursor } = await pageById(query, (before, count) => this.repo.list(scope, before, count));
    return { lists: items.map(listSummaryView), next_cursor };
  }

  async get(scope: Scope, id: string) {
    const row = await this.inScope(this.repo.db, scope, id);
    return listView(row, await this.repo.numbersOf(this.repo.db, row.id));
  }

  async rename(scope: Scope, id: string, name: string) {
    return this.change(scope, id, async (_tx, row) => ({ ...row, name }));
  }

  async remove(scope: Scope, id: string): Promise<void> {
    const at = this.clock.now().toISOString();
    await transact(this.repo.db, async (tx) => {
      // Written first (locked on PostgreSQL): a concurrent change of the list's numbers waits.
      await this.repo.touch(tx, id, { updated_at: at });
      const row = await this.inScope(tx, scope, id);
      const numbers = await this.repo.remove(tx, row.id);
      await this.storedCaps.release(tx, 'contact_lists', row.organization_id);
      await this.storedCaps.release(tx, 'list_numbers', row.organization_id, numbers);
    });
  }

  /** In the transaction that deletes the scope (a pod, a released cell): its lists go, and their room comes back. */
  async removeAllIn(tx: Executor, scope: Scope): Promise<void> {
    const removed = await this.repo.removeAllIn(tx, scope);
    await this.storedCaps.release(tx, 'contact_lists', scope.organizationId, removed.lists);
    await this.storedCaps.release(tx, 'list_numbers', scope.organizationId, removed.numbers);
  }

  /** Adds numbers (duplicates ignored); 400 when the list would pass 10,000. */
  async addNumbers(scope: Scope, id: string, inputs: string[]) {
    const numbers = normalizeNumbers('numbers', inputs);
    return this.change(scope, id, async (tx, row, at) => {
      await this.repo.addNumbers(tx, row.id, numbers, at);
      const count = await this.repo.countNumbers(tx, row.id);
      if (count > MAX_LIST_NUMBERS) throw tooMany(count);
      await this.storedCaps.take(tx, 'list_numbers', row.organization_id, count - row.number_count);
      return { ...row, number_count: count };
    });
  }

  /** Removes numbers (those not on the list are ignored). */
  async removeNumbers(scope: Scope, id: string, inputs: string[]) {
    const numbers = normalizeNumbers('numbers', inputs);
    return this.change(scope, id, async (tx, row) => {
      await this.repo.removeNumbers(tx, row.id, numbers);
      const count = await this.repo.countNumbers(tx, row.id);
      await this.storedCaps.release(tx, 'list_numbers', row.organization_id, row.number_count - count);
      return { ...row, number_count: count };
    });
  }

  /** A list of the organization (under any of its cells or pods), for a broadcast; undefined when none. */
  findOwned(organizationId: string, id: string) {
    return this.repo.findOwned(organizationId, id);
  }

  /**
   * Runs `apply` on the list in one transaction, its row written (and so locked on PostgreSQL)
   * first: concurrent changes of one list take turns, so the 10,000 limit holds.
   */
  private async change(
    scope: Scope,
    id: string,
    apply: (tx: Executor, row: ContactListsTable, at: string) => Promise<ContactListsTable>,
  ) {
    const at = this.clock.now().toISOString();
    return transact(this.repo.db, async (tx) => {
      await this.repo.touch(tx, id, { updated_at: at });
      const row = await this.inScope(tx, scope, id);
      const changed = { ...(await apply(tx, row, at)), updated_at: at };
      await this.repo.touch(tx, row.id, { name: changed.name, number_count: changed.number_count, updated_at: at });
      return listView(changed, await this.repo.numbersOf(tx, row.id));
    });
  }

  private async inScope(ex: Executor, scope: Scope, id: string): Promise<ContactListsTable> {
    return orNotFound(await this.repo.findInScope(ex, scope, id), 'list');
  }
}
