// What the fleet and device pages show (issue 25 §1): every phone as the admin surface reads it
// (deviceView), with its cell and organization, the queue of its cell and what it sent and failed
// in the last 24 hours; one phone's telemetry over 24 hours and its latest failures.
import type { Clock } from '../../../lib/clock.ts';
import type { DevicesService, DeviceView } from '../../devices/service.ts';
import type { OperatorRepository } from './repository.ts';

const DAY_MS = 24 * 3_600_000;
/** Heartbeat history keeps one row a minute: a day is at most this many. */
const HEARTBEATS_PER_DAY = 24 * 60;
export const RECENT_FAILURES = 20;

export type { DeviceView };

/** The cell a phone or one of its SIM lines carries, with that cell's organization (issue 34). */
type CellOf = { [Name in 'cell_name' | 'organization_id' | 'organization_name']: string | null };
const NO_CELL: CellOf = { cell_name: null, organization_id: null, organization_name: null };
/** A SIM line of an SMSGate phone with the cell it carries and that cell's organization. */
export type FleetLine = DeviceView['sims'][number] & CellOf;

export type FleetRow = CellOf & {
  device: DeviceView;
  /** Queued for the cells it carries (both lines' on a dual-SIM phone). */
  queued: number;
  /** An SMSGate phone's SIM lines; empty for a phone of the native surface (one line: its number). */
  lines: FleetLine[];
};

/** The fleet's filters: the rows each keeps. */
const KEEPS = {
  all: () => true,
  offline: (row: FleetRow) => !row.device.online,
  unhealthy: (row: FleetRow) => row.device.health !== 'healthy',
  paused: (row: FleetRow) => row.device.paused,
};
export type FleetFilter = keyof typeof KEEPS;
export const FLEET_FILTERS = Object.keys(KEEPS) as FleetFilter[];

export class FleetView {
  private readonly deps: { repo: OperatorRepository; devices: DevicesService; clock: Clock };

  constructor(deps: FleetView['deps']) {
    this.deps = deps;
  }

  /** Each phone with its cells, their organizations and their queues. */
  private async rows(devices: DeviceView[]): Promise<FleetRow[]> {
    const carried = devices.flatMap((d) => [d.cell_id, ...d.sims.map((line) => line.cell_id)]);
    const ids = [...new Set(carried)].filter((id) => id !== null);
    const [cells, queued] = await Promise.all([this.deps.repo.cells(ids), this.deps.repo.queuedByCell(ids)]);
    const named = new Map(cells.map(({ id, ...cell }) => [id, cell]));
    const cellOf = (id: string | null) => (id && named.get(id)) || NO_CELL;
    return devices.map((device) => {
      const lines = device.agent === 'smsgate' ? device.sims : [];
      const carried = new Set([device.cell_id, ...lines.map((line) => line.cell_id)]);
      return {
        device,
        ...cellOf(device.cell_id),
        queued: [...carried].reduce((sum, cell) => sum + (cell ? (queued.get(cell) ?? 0) : 0), 0),
        lines: lines.map((line) => ({ ...line, ...cellOf(line.cell_id) })),
      };
    });
  }

  /** Every phone (oldest first), narrowed by the filter. */
  async fleet(filter: FleetFilter = 'all'): Promise<FleetRow[]> {
    const devices = await this.deps.devices.views(await this.deps.repo.fleet());
    return (await this.rows(devices)).filter(KEEPS[filter]);
  }

  /** One phone's row; 404 when it is not in the inventory. */
  async device(id: string): Promise<FleetRow> {
    return (await this.rows([await this.deps.devices.get(id)]))[0];
  }

  /** Battery, charging and signal as reported over the last 24 hours, oldest first. */
  async telemetry(id: string) {
    const now = this.deps.clock.now();
    const from = new Date(now.getTime() - DAY_MS);
    const page = await this.deps.devices.heartbeats(id, {
      from: from.toISOString(),
      to: new Date(now.getTime() + 1).toISOString(),
      limit: HEARTBEATS_PER_DAY + 1,
    });
    return { from, to: now, points: page.heartbeats.reverse() };
  }

  recentFailures(id: string) {
    return this.deps.repo.recentFailures(id, RECENT_FAILURES);
  }
}
