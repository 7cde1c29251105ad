// Ignore lists (contract §5) under a cell or a pod. A participant ignored on a cell, or on the pod
// the cell is in, still gets through: its inbound texts are stored with ignored: true (and STOP
// still opts it out), but they emit no event or webhook and stay out of default listings.
// Sends to an ignored participant work. The messages module asks through IgnoreListPort.
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { IgnoreListPort } from '../messages/ports.ts';
import type { IgnoreRepository } from './ignore-repository.ts';
import type { CellsPort } from './ports.ts';
import type { Scope } from './scope.ts';
import { ignoredView } from './views.ts';

export class IgnoreService implements IgnoreListPort {
  private readonly repo: IgnoreRepository;
  private readonly cells: CellsPort;
  private readonly clock: Clock;
  private readonly storedCaps: StoredCaps;

  constructor(deps: { repo: IgnoreRepository; cells: CellsPort; clock: Clock; storedCaps: StoredCaps }) {
    ({ repo: this.repo, cells: this.cells, clock: this.clock, storedCaps: this.storedCaps } = deps);
  }

  async list(scope: Scope, query: PageQuery) {
    const { items, next_cursor } = await listPage(
      query,
      (key, count) => this.repo.list(scope.id, key ? { at: String(key[0]), participant: String(key[1]) } : null, count),
      (row) => [row.created_at, row.participant],
      2,
    );
    return { ignored: items.map(ignoredView), next_cursor };
  }

  /**
   * 201 when added; 200 with the existing entry when the participant was already ignored here.
   * A list holds at most its cap (409 conflict), counted in the transaction that adds (stored-caps).
   */
  async add(scope: Scope, participantInput: string) {
    const participant = requirePhone('participant', participantInput);
    const existing = await this.repo.find(this.repo.db, scope.id, participant);
    if (existing) return { created: false, entry: ignoredView(existing) };
    const row = {
      scope_id: scope.id,
      organization_id: scope.organizationId,
      participant,
      created_at: this.clock.now().toISOString(),
    };
    const added = await transact(this.repo.db, async (tx) => {
      if (!(await this.repo.add(tx, row))) return false;
      await this.storedCaps.take(tx, 'ignored_participants', scope.id);
      return true;
    });
    if (added) return { created: true, entry: ignoredView(row) };
    // A concurrent add of the same participant won.
    return { created: false, entry: ignoredView((await this.repo.find(this.repo.db, scope.id, participant)) ?? row) };
  }

  /** Removes the participant from the list; nothing to do when it is not on it. */
  async remove(scope: Scope, participantInput: string): Promise<void> {
    const participant = requirePhone('participant', participantInput);
    await transact(this.repo.db, async (tx) => {
      if (await this.repo.remove(tx, scope.id, participant))
        await this.storedCaps.release(tx, 'ignored_participants', scope.id);
    });
  }

  // --- IgnoreListPort (the messages module) ---

  async isIgnored(ex: Executor, organizationId: string, cellId: string, participant: string): Promise<boolean> {
    return (await this.ignoredOn(organizationId, cellId, participant, ex)) !== null;
  }

  /** Where the participant is ignored for this cell: on the cell itself, on its pod, or not at all (null). */
  async ignoredOn(
    organizationId: string,
    cellId: string,
    participant: string,
    ex: Executor = this.repo.db,
  ): Promise<'cell' | 'pod' | null> {
    const scopes = await this.repo.scopesIgnoring(ex, organizationId, participant);
    if (scopes.length === 0) return null;
    if (scopes.includes(cellId)) return 'cell';
    const [cell] = await this.cells.cellsAmong(ex, organizationId, [cellId]);
    return cell?.pod_id && scopes.includes(cell.pod_id) ? 'pod' : null;
  }

  async ignoredParticipants(organizationId: string, cellId: string): Promise<string[]> {
    const [cell] = await this.cells.cellsAmong(this.repo.db, organizationId, [cellId]);
    return this.repo.participantsOf(cell?.pod_id ? [cellId, cell.pod_id] : [cellId]);
  }
}
