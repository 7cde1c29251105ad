// What the fleet and device pages show (issue 25 §1): every phone as the admin surface reads it
// (deviceView), with its cell and organization, the queue of its cell and what it sent and failed
// in the last 24 hours; one phone's telemetry over 24 hours and its latest failures.
import type { Clock } from '../../../lib/clock.ts';
import { notFound } from '../../../lib/errors.ts';
import type { DevicesService, DeviceView } from '../../devices/service.ts';
import type { OperatorRepository } from './repository.ts';

const DAY_MS = 24 * 3_600_000;
/** Heartbeat history keeps one row a minute: a day is at most this many. */
const HEARTBEATS_PER_DAY = 24 * 60;
export const RECENT_FAILURES = 20;

export type { DeviceView };

type Joined = NonNullable<Awaited<ReturnType<OperatorRepository['device']>>>;
/** A SIM line of an SMSGate phone with the cell it carries and that cell's organization (issue 34). */
export type FleetLine = Awaited<ReturnType<OperatorRepository['lines']>>[number];

export type FleetRow = Pick<Joined, 'cell_name' | 'organization_id' | 'organization_name'> & {
  device: DeviceView;
  /** Queued for the cells it carries (both lines' on a dual-SIM phone). */
  queued: number;
  /** An SMSGate phone's SIM lines; empty for a phone of the native surface (one line: its number). */
  lines: FleetLine[];
};

export type FleetFilter = 'all' | 'offline' | 'unhealthy' | 'paused';
export const FLEET_FILTERS: readonly FleetFilter[] = ['all', 'offline', 'unhealthy', 'paused'];

const KEEPS: Record<FleetFilter, (row: FleetRow) => boolean> = {
  all: () => true,
  offline: (row) => !row.device.online,
  unhealthy: (row) => row.device.health !== 'healthy',
  paused: (row) => row.device.paused,
};

export class FleetView {
  private readonly deps: { repo: OperatorRepository; devices: DevicesService; clock: Clock };

  constructor(deps: FleetView['deps']) {
    this.deps = deps;
  }

  /** Rows of the joined reads, each phone as the admin surface shows it (with its last 24 hours). */
  private async rows(joined: Joined[], allLines: FleetLine[], queued: Map<string, number>): Promise<FleetRow[]> {
    const devices = joined.map(({ cell_name: _c, organization_id: _o, organization_name: _n, ...device }) => device);
    const views = await this.deps.devices.views(devices);
    const linesOf = Map.groupBy(allLines, (line) => line.device_id);
    return joined.map((row, index) => {
      const lines = linesOf.get(row.id) ?? [];
      const cells = new Set([row.cell_id, ...lines.map((line) => line.cell_id)]);
      return {
        device: views[index],
        cell_name: row.cell_name,
        organization_id: row.organization_id,
        organization_name: row.organization_name,
        queued: [...cells].reduce((sum, cell) => sum + (cell ? (queued.get(cell) ?? 0) : 0), 0),
        lines,
      };
    });
  }

  /** Every phone (oldest first), narrowed by the filter. */
  async fleet(filter: FleetFilter = 'all'): Promise<FleetRow[]> {
    const [joined, lines, queued] = await Promise.all([
      this.deps.repo.fleet(),
      this.deps.repo.lines(),
      this.deps.repo.queuedByCell(),
    ]);
    return (await this.rows(joined, lines, queued)).filter(KEEPS[filter]);
  }

  /** One phone's row; 404 when it is not in the inventory. */
  async device(id: string): Promise<FleetRow> {
    const [joined, lines] = await Promise.all([this.deps.repo.device(id), this.deps.repo.lines(id)]);
    if (!joined) throw notFound('device');
    const cells = [joined.cell_id, ...lines.map((line) => line.cell_id)].filter((cell) => cell !== null);
    const queued = await this.deps.repo.queuedByCell([...new Set(cells)]);
    return (await this.rows([joined], lines, queued))[0];
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
