// Pods (contract §5): sender pools of an organization's cells. Create with client_id, list, read,
// rename or replace the cells, delete (which frees the cells). A cell is in at most one pod:
// membership is the cell's pod_id, changed in the pod's transaction through CellsService.setPod,
// which emits cell.updated for every cell that moves.
import type { Static } from 'typebox';
import { requireQuietHours } from '../../lib/quiet-hours.ts';
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import { clientIdHash } from '../../lib/client-id.ts';
import { createOnce } from '../../db/create-once.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, notFound, orNotFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { Port } from '../../lib/ports.ts';
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { CellRecord } from '../cells/service.ts';
import type { CreatePodBody, UpdatePodBody } from './operations.ts';
import type { CellsPort } from './ports.ts';
import type { PodsRepository } from './repository.ts';
import type { PodsTable } from './tables.ts';
import { podView, type PodView } from './views.ts';

export type CreatePodInput = Static<typeof CreatePodBody>;
export type UpdatePodInput = Omit<Static<typeof UpdatePodBody>, 'id'>;

/** Runs in the transaction that deletes a pod, before its cells leave it (cycle jobs stop). */
export type PodRemovalListener = (tx: Executor, pod: PodsTable) => Promise<void>;

/** Billing's 402 refusing every send of each organization, or null (wired by the composition root). */
export type SendRefusals = (organizationIds: readonly string[]) => Promise<Map<string, ApiError | null>>;

/** A cell that can send for its pod now. */
export type ActiveCell = Pick<CellRecord, 'id' | 'device_id'> & { phone_number: string };

/** A cell pods may send from: active, with a phone that is neither paused nor quarantined (contract §11). */
const isActive = (cell: CellRecord): cell is CellRecord & { phone_number: string } =>
  cell.status === 'active' &&
  cell.phone_number !== null &&
  cell.device_paused !== 1 &&
  cell.device_health !== 'quarantined';

export class PodsService {
  private readonly repo: PodsRepository;
  private readonly cells: CellsPort;
  private readonly clock: Clock;
  private readonly storedCaps: StoredCaps;
  private readonly removalListeners: PodRemovalListener[] = [];
  /** Wired by the composition root: billing's refusals of sends. */
  readonly ports = { sendRefusals: new Port<SendRefusals>('pods', 'sendRefusals') };

  constructor(deps: { repo: PodsRepository; cells: CellsPort; clock: Clock; storedCaps: StoredCaps }) {
    ({ repo: this.repo, cells: this.cells, clock: this.clock, storedCaps: this.storedCaps } = deps);
  }

  onRemove(listener: PodRemovalListener): void {
    this.removalListeners.push(listener);
  }

  /**
   * Billing's refusal of the organizations' sends: pod sends check it before their cells, since
   * a suspended organization's cells are suspended too (and the answer must be its 402).
   */
  sendRefusals(organizationIds: readonly string[]): Promise<Map<string, ApiError | null>> {
    return this.ports.sendRefusals.value(organizationIds);
  }

  /** The organization's live pod; 404 for unknown, deleted or another organization's pods. */
  async owned(organizationId: string, id: string, ex: Executor = this.repo.db): Promise<PodsTable> {
    return orNotFound(await this.repo.findOwned(ex, organizationId, id), 'pod');
  }

  /** 201 on the first create; 200 with the pod when the same body repeats the client_id. */
  async create(organizationId: string, input: CreatePodInput): Promise<{ created: boolean; pod: PodView }> {
    const cellIds = [...new Set(input.cell_ids ?? [])];
    const hash = clientIdHash({ name: input.name, client_id: input.client_id, cell_ids: [...cellIds].sort() });
    const { created, value } = await createOnce({
      resource: 'pod',
      hash,
      earlier: () => this.repo.findByClientId(organizationId, input.client_id),
      create: () => this.insert(organizationId, input, cellIds, hash),
      view: (row) => this.viewOf(row),
    });
    return { created, pod: value };
  }

  private async insert(organizationId: string, input: CreatePodInput, cellIds: string[], hash: string) {
    await this.checkCells(organizationId, null, input.cell_ids ?? []);
    const now = this.clock.now();
    const at = now.toISOString();
    const row: PodsTable = {
      id: newId('pod', this.clock, now),
      organization_id: organizationId,
      client_id: input.client_id,
      request_hash: hash,
      name: input.name,
      rotation: 0,
      quiet_hours: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    };
    await transact(this.repo.db, async (tx) => {
      await this.storedCaps.take(tx, 'pods', organizationId);
      await this.repo.insert(tx, row);
      await this.placeCells(tx, organizationId, row.id, cellIds);
    });
    return this.viewOf(row);
  }

  async list(organizationId: string, query: PageQuery) {
    const { items, next_cursor } = await pageById(query, (before, count) =>
      this.repo.list(organizationId, before, count),
    );
    const ids = items.map((pod) => pod.id);
    const members = await this.cells.podCells(this.repo.db, ids);
    const cellsOf = (pod: PodsTable) => members.filter((cell) => cell.pod_id === pod.id);
    return { pods: items.map((pod) => podView(pod, cellsOf(pod))), next_cursor };
  }

  async get(organizationId: string, id: string): Promise<PodView> {
    return this.viewOf(await this.owned(organizationId, id));
  }

  /** Renames and/or replaces the set of cells (cells left out leave the pod). */
  async update(organizationId: string, id: string, input: UpdatePodInput): Promise<PodView> {
    const pod = await this.owned(organizationId, id);
    if (input.cell_ids !== undefined) await this.checkCells(organizationId, pod.id, input.cell_ids);
    // quiet_hours: undefined keeps them, null clears them.
    const hours = input.quiet_hours && JSON.stringify(requireQuietHours('quiet_hours', input.quiet_hours));
    const changes = {
      updated_at: this.clock.now().toISOString(),
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(hours !== undefined ? { quiet_hours: hours } : {}),
    };
    await transact(this.repo.db, async (tx) => {
      if (!(await this.repo.update(tx, pod.id, changes))) throw notFound('pod');
      if (input.cell_ids !== undefined) await this.placeCells(tx, organizationId, pod.id, [...new Set(input.cell_ids)]);
    });
    return this.viewOf({ ...pod, ...changes });
  }

  /** Deletes the pod: its cells are free again, its open cycle jobs are canceled. Its client_id stays taken. */
  async remove(organizationId: string, id: string): Promise<void> {
    const now = this.clock.now().toISOString();
    await transact(this.repo.db, async (tx) => {
      const pod = await this.owned(organizationId, id, tx);
      if (!(await this.repo.update(tx, pod.id, { deleted_at: now, updated_at: now }))) throw notFound('pod');
      await this.storedCaps.release(tx, 'pods', organizationId);
      for (const listener of this.removalListeners) await listener(tx, pod);
      await this.placeCells(tx, organizationId, pod.id, []);
    });
  }

  /** The pod's cells that can send now (active, with a number), oldest first. */
  async activeCells(podId: string): Promise<ActiveCell[]> {
    return (await this.activeCellsOf([podId])).get(podId) ?? [];
  }

  /** activeCells of each of these pods (in one statement); a pod without any is left out. */
  async activeCellsOf(podIds: readonly string[]): Promise<Map<string, ActiveCell[]>> {
    const byPod = new Map<string, ActiveCell[]>();
    for (const cell of await this.cells.podCells(this.repo.db, podIds)) {
      if (!isActive(cell) || cell.pod_id === null) continue;
      const { id, phone_number, device_id } = cell;
      byPod.set(cell.pod_id, [...(byPod.get(cell.pod_id) ?? []), { id, phone_number, device_id }]);
    }
    return byPod;
  }

  /** The first of the pod's next `count` round-robin positions (pod draft sends without a sticky cell). */
  takeRotations(podId: string, count: number): Promise<number> {
    return this.repo.advanceRotation(podId, count);
  }

  private async viewOf(pod: PodsTable): Promise<PodView> {
    return podView(pod, await this.cells.podCells(this.repo.db, [pod.id]));
  }

  /**
   * Every id must be a live cell of the organization (else 400, each bad one by its index in
   * errors[]) in no other pod (else 409 cell_in_pod).
   */
  private async checkCells(organizationId: string, podId: string | null, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const found = new Map(
      (await this.cells.cellsAmong(this.repo.db, organizationId, [...new Set(ids)])).map((cell) => [cell.id, cell]),
    );
    const message = (id: string) => `No cell ${id} in this organization (unknown or released).`;
    const errors = ids.flatMap((id, i) =>
      found.has(id) ? [] : [{ field: `cell_ids.${i}`, code: 'not_found', message: message(id) }],
    );
    if (errors.length > 0) {
      throw new ApiError(
        'invalid_request',
        errors.length === 1 ? errors[0].message : `${errors.length} cell ids name no cell of this organization.`,
        { errors },
      );
    }
    const taken = [...found.values()].filter((cell) => cell.pod_id !== null && cell.pod_id !== podId);
    if (taken.length > 0) {
      throw new ApiError(
        'cell_in_pod',
        `${taken.map((cell) => `${cell.id} is in ${String(cell.pod_id)}`).join('; ')}; a cell belongs to at most one pod.`,
      );
    }
  }

  private async placeCells(tx: Executor, organizationId: string, podId: string, ids: string[]): Promise<void> {
    if (!(await this.cells.setPod(tx, organizationId, podId, ids))) {
      throw new ApiError('cell_in_pod', 'A cell joined another pod meanwhile; a cell belongs to at most one pod.');
    }
  }
}
