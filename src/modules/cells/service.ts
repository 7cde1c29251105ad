// Cells (an organization's phone lines): create with a free device or wait in `provisioning` for
// one, rename, release (which frees the device for the oldest waiting cell), and the cell events
// of contract §6 — including cell.online/offline when the carrying device's presence changes.
import type { Executor } from '../../db/schema.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../lib/errors.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { DevicesService } from '../devices/service.ts';
import { capabilitiesView } from '../devices/capabilities.ts';
import type { DevicesTable } from '../devices/tables.ts';
import type { EventsService } from '../events/service.ts';
import type { EventType } from '../events/types.ts';
import type { CellRecord, CellsRepository } from './repository.ts';
import type { CellStatus } from './tables.ts';
import { parseQuietHours, requireQuietHours, type QuietHours } from '../../lib/quiet-hours.ts';
import { transact } from '../../db/transaction.ts';
import { Listeners, Port } from '../../lib/ports.ts';

export type { CellRecord } from './repository.ts';

/** Runs inside the release transaction (e.g. messages fails the cell's queued messages). */
export type ReleaseListener = (tx: Executor, cell: CellRecord) => Promise<void>;

/** Runs first in the create transaction (billing); throwing refuses the create. */
export type CellAdmission = (
  tx: Executor,
  organizationId: string,
  cellId: string,
  options: { tier?: string },
) => Promise<void>;

export type CellView = ReturnType<typeof cellView>;
type CellEventType = Extract<EventType, `cell.${string}`>;

/**
 * Whether the cell's phone sends (contract §11): paused by the operator, quarantined (it looks
 * blocked by the carrier; the operator releases it), degraded (failures, still sending) or healthy.
 */
export function cellHealth(row: {
  device_paused: number | null;
  device_health: string | null;
}): 'healthy' | 'degraded' | 'quarantined' | 'paused' {
  if (row.device_paused === 1) return 'paused';
  if (row.device_health === 'quarantined' || row.device_health === 'degraded') return row.device_health;
  return 'healthy';
}

export function cellView(row: CellRecord) {
  return {
    id: row.id,
    display_name: row.display_name,
    phone_number: row.phone_number,
    status: row.status,
    online: row.device_online === 1,
    last_seen_at: row.device_last_seen_at,
    pod_id: row.pod_id,
    quiet_hours: parseQuietHours(row.quiet_hours),
    // All true without a phone: nothing is known to be missing, and a provisioning cell cannot send anyway.
    capabilities: capabilitiesView(row),
    health: cellHealth(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A cell that can send now. */
export interface SendingCell {
  id: string;
  organization_id: string;
  phone_number: string;
  /** Whether its phone sends MMS (contract §4: a send with media from one that cannot is 409 mms_unsupported). */
  mms_send: boolean;
  /** The quiet hours its sends keep (contract §12): the cell's own, else its pod's, else null. */
  quiet_hours: QuietHours | null;
  /** The phone carrying it and its limits in segments (the pace of its sends), or null. */
  phone: { id: string; sendRatePerMinute: number; dailySendLimit: number } | null;
}

export class CellsService {
  private readonly repo: CellsRepository;
  private readonly devices: DevicesService;
  private readonly events: EventsService;
  private readonly clock: Clock;
  /** Wired by the composition root: billing admits creates, messages fails a released cell's queue. */
  readonly ports = {
    admission: new Port<CellAdmission>('cells', 'admission'),
    released: new Listeners<ReleaseListener>('cells', 'released'),
  };

  /** Counts for GET /v1/agent/status: online/offline are of active cells. */
  async counts(organizationId: string, ex?: Executor) {
    const counts = { total: 0, active: 0, online: 0, offline: 0, provisioning: 0 };
    for (const row of await this.repo.countsByStatus(organizationId, ex)) {
      const n = Number(row.n);
      counts.total += n;
      if (row.status === 'provisioning') counts.provisioning += n;
      if (row.status === 'active') {
        counts.active += n;
        if (row.online) counts.online += n;
        else counts.offline += n;
      }
    }
    return counts;
  }

  /** Active cells whose phone has never called in: offline, but not for having gone silent. */
  countNeverSeen(organizationId: string): Promise<number> {
    return this.repo.countNeverSeen(organizationId);
  }

  constructor(deps: { repo: CellsRepository; devices: DevicesService; events: EventsService; clock: Clock }) {
    this.repo = deps.repo;
    this.devices = deps.devices;
    this.events = deps.events;
    this.clock = deps.clock;
  }

  /** A phone stated other capabilities (in that transaction): its cells' views changed, so cell.updated. */
  async capabilitiesChanged(tx: Executor, device: DevicesTable): Promise<void> {
    await this.recordEachCell(tx, device, 'cell.updated');
  }

  /** Inside the transaction that paused, resumed or changed the health of a device: cell.updated when its cells show it. */
  async deviceStateChanged(tx: Executor, before: DevicesTable, after: DevicesTable): Promise<void> {
    const shown = (device: DevicesTable) => cellHealth({ device_paused: device.paused, device_health: device.health });
    if (shown(before) !== shown(after)) await this.recordEachCell(tx, after, 'cell.updated');
  }

  view(row: CellRecord): CellView {
    return cellView(row);
  }

  /**
   * In the billing transaction that suspends or reinstates the organization: its active cells
   * become suspended (their phones stop taking work), or back; each emits cell.updated.
   */
  async setSuspended(tx: Executor, organizationId: string, suspended: boolean): Promise<void> {
    const [from, to]: CellStatus[] = suspended ? ['active', 'suspended'] : ['suspended', 'active'];
    const moved = await this.repo.moveStatus(tx, organizationId, from, to, this.clock.now().toISOString());
    for (const cell of moved) {
      if (cell.device_id) this.devices.forgetAssignment(cell.device_id);
      await this.recordEvent(tx, cell.id, 'cell.updated');
    }
  }

  /** One more listener run in every release transaction (beside the wired one). */
  onRelease(listener: ReleaseListener): void {
    this.ports.released.wire(listener);
  }

  /** The organization's cell; 404 when unknown, another organization's or released. */
  async getOwned(organizationId: string, cellId: string, ex: Executor = this.repo.db): Promise<CellRecord> {
    return orNotFound(await this.repo.findOwned(ex, organizationId, cellId), 'cell');
  }

  /**
   * For a batch of sends, in its transaction (one statement): per request, the cell if it can send
   * now (active, with a phone number), else the error to answer: 404 for an unknown, released or
   * another organization's cell, 409 cell_not_active otherwise.
   */
  async sendingCells(
    ex: Executor,
    requests: readonly { organizationId: string; cellId: string }[],
  ): Promise<(SendingCell | ApiError)[]> {
    // A batch often holds many sends from one cell: each cell is asked for once.
    const refs = new Map(
      requests.map(({ organizationId, cellId: id }) => [`${organizationId}\n${id}`, { organizationId, id }]),
    );
    const rows = await this.repo.findOwnedAmong(ex, [...refs.values()]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return requests.map(({ organizationId, cellId }) => {
      const row = byId.get(cellId);
      if (!row || row.organization_id !== organizationId) return notFound('cell');
      if (row.status !== 'active')
        return new ApiError('cell_not_active', `The cell is ${row.status}; it must be active.`);
      if (!row.phone_number) return new ApiError('cell_not_active', 'The cell has no phone number yet.');
      return {
        id: row.id,
        organization_id: row.organization_id,
        phone_number: row.phone_number,
        mms_send: row.can_mms_send !== 0,
        quiet_hours: parseQuietHours(row.quiet_hours ?? row.pod_quiet_hours),
        phone:
          row.device_id === null
            ? null
            : {
                id: row.device_id,
                sendRatePerMinute: Number(row.send_rate_per_minute),
                dailySendLimit: Number(row.daily_send_limit),
              },
      };
    });
  }

  async create(organizationId: string, displayName: string, options: { tier?: string } = {}): Promise<CellView> {
    const now = this.clock.now();
    const iso = now.toISOString();
    const id = newId('cell', this.clock, now);
    const { view, device } = await transact(this.repo.db, async (tx) => {
      await this.ports.admission.value(tx, organizationId, id, options);
      const device = await this.devices.claimFree(tx, id);
      await this.repo.insert(tx, {
        id,
        organization_id: organizationId,
        display_name: displayName,
        phone_number: device?.phone_number ?? null,
        status: device ? 'active' : 'provisioning',
        quiet_hours: null,
        device_id: device?.id ?? null,
        pod_id: null,
        created_at: iso,
        updated_at: iso,
        released_at: null,
      });
      const view = await this.recordEvent(tx, id, 'cell.created');
      return { view, device };
    });
    if (device) {
      this.devices.forgetAssignment(device.id);
      return view;
    }
    // A device added while this transaction ran could not see the cell; pair them now.
    if ((await this.fillProvisioning()) === 0) return view;
    return this.get(organizationId, id);
  }

  async list(organizationId: string, status: CellStatus | undefined, query: PageQuery) {
    const result = await pageById(query, (before, count) => this.repo.list(organizationId, status, before, count));
    return { cells: result.items.map(cellView), next_cursor: result.next_cursor };
  }

  async get(organizationId: string, cellId: string): Promise<CellView> {
    return cellView(await this.getOwned(organizationId, cellId));
  }

  /** PATCH: the display name and the quiet hours (null clears them); at least one. */
  async update(
    organizationId: string,
    cellId: string,
    input: { display_name?: string; quiet_hours?: QuietHours | null },
  ): Promise<CellView> {
    if (input.display_name === undefined && input.quiet_hours === undefined)
      throw invalidField('display_name', 'required', 'Give display_name, quiet_hours or both.');
    const quiet =
      input.quiet_hours === undefined
        ? undefined
        : input.quiet_hours === null
          ? null
          : JSON.stringify(requireQuietHours('quiet_hours', input.quiet_hours));
    return transact(this.repo.db, async (tx) => {
      const updated = await this.repo.update(
        tx,
        organizationId,
        cellId,
        { display_name: input.display_name, quiet_hours: quiet },
        this.clock.now().toISOString(),
      );
      if (updated === 0) throw notFound('cell');
      return this.recordEvent(tx, cellId, 'cell.updated');
    });
  }

  /** Releases the cell: its device goes to the oldest waiting cell; later reads are 404. */
  async release(organizationId: string, cellId: string): Promise<CellView> {
    const { view, deviceId } = await transact(this.repo.db, async (tx) => {
      const cell = await this.getOwned(organizationId, cellId, tx);
      if ((await this.repo.markReleased(tx, cellId, this.clock.now().toISOString())) === 0) throw notFound('cell');
      const deviceId = await this.devices.unassign(tx, cellId);
      for (const listener of this.ports.released.all) await listener(tx, cell);
      const view = await this.recordEvent(tx, cellId, 'cell.deleted');
      return { view, deviceId };
    });
    if (deviceId) {
      this.devices.forgetAssignment(deviceId);
      await this.fillProvisioning();
    }
    return view;
  }

  /**
   * Pairs waiting (provisioning) cells with free devices, oldest first, one transaction each;
   * how many were paired. Runs after every change that may leave both waiting and in the
   * presence worker, which repairs what a crash between commit and pairing left behind.
   */
  async fillProvisioning(): Promise<number> {
    let paired = 0;
    for (;;) {
      const deviceId = await transact(this.repo.db, (tx) => this.pairOldest(tx));
      if (!deviceId) return paired;
      this.devices.forgetAssignment(deviceId);
      paired += 1;
    }
  }

  /** In the caller's transaction: the oldest provisioning cell gets a free device (cell.updated); the device id, or null. */
  async pairOldest(tx: Executor): Promise<string | null> {
    for (;;) {
      const cell = await this.repo.oldestProvisioning(tx);
      if (!cell) return null;
      // Hold the cell first, so two pairings never both give it a device (devices.cell_id is
      // unique); the loser waits, finds it no longer provisioning and takes the next one.
      if ((await this.repo.lockProvisioning(tx, cell.id)) === 0) continue;
      const device = await this.devices.claimFree(tx, cell.id);
      if (!device) return null;
      await this.repo.activate(tx, cell.id, device, this.clock.now().toISOString());
      await this.recordEvent(tx, cell.id, 'cell.updated');
      return device.id;
    }
  }

  /** A device went online or offline (in that transaction): its cells follow, each with its event. */
  async presenceChanged(tx: Executor, device: DevicesTable, online: boolean): Promise<void> {
    await this.recordEachCell(tx, device, online ? 'cell.online' : 'cell.offline');
  }

  /** The event for every cell the phone carries (both SIM lines' on a dual-SIM phone). */
  private async recordEachCell(tx: Executor, device: DevicesTable, type: CellEventType) {
    for (const cellId of await this.devices.cellsCarried(tx, device)) await this.recordEvent(tx, cellId, type);
  }

  // --- Pods (contract §5): a cell's pod is cells.pod_id; the pods module keeps it through these. ---

  /** The organization's live (not released) cells among `ids`, with their pod. */
  cellsAmong(ex: Executor, organizationId: string, ids: readonly string[]) {
    return this.repo.findOwnedIds(ex, organizationId, ids);
  }

  /** The live cells of these pods, oldest first. */
  podCells(ex: Executor, podIds: readonly string[]): Promise<CellRecord[]> {
    return this.repo.inPods(ex, podIds);
  }

  /**
   * In the caller's transaction: exactly `ids` (live cells of the organization) are in pod `podId`
   * afterwards, and the pod's other cells leave it, each with cell.updated. False, with nothing
   * emitted, when one of `ids` is in another pod: the caller rolls back (409 cell_in_pod).
   */
  async setPod(tx: Executor, organizationId: string, podId: string, ids: readonly string[]): Promise<boolean> {
    const now = this.clock.now().toISOString();
    const left = await this.repo.leavePod(tx, podId, ids, now);
    const joined = ids.length > 0 ? await this.repo.joinPod(tx, organizationId, podId, ids, now) : [];
    if (ids.length > 0 && (await this.repo.countInPod(tx, podId, ids)) !== ids.length) return false;
    for (const id of [...left, ...joined].sort()) await this.recordEvent(tx, id, 'cell.updated');
    return true;
  }

  /** Emits a cell event carrying the cell's current view (read inside the transaction); returns the view. */
  private async recordEvent(tx: Executor, cellId: string, type: CellEventType): Promise<CellView> {
    const record = await this.repo.find(tx, cellId);
    if (!record) throw new Error(`cell ${cellId} vanished inside its own transaction`);
    const view = cellView(record);
    await this.events.emit(tx, { organizationId: record.organization_id, type, data: view });
    return view;
  }
}
