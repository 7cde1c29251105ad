// What the fleet and device pages show (issue 25 §1): every phone as the admin surface reads it
// (deviceView), with its cell and organization, the queue of its cell and what it sent and failed
// in the last 24 hours; one phone's telemetry over 24 hours and its latest failures.
import type { Clock } from '../../../lib/clock.ts';
import { notFound } from '../../../lib/errors.ts';
import type { DevicesService } from '../../devices/service.ts';
import { deviceView } from '../../devices/service.ts';
import type { OperatorRepository } from './repository.ts';

const DAY_MS = 24 * 3_600_000;
/** A claim older than this before the window cannot have been sent or failed in it (leases are minutes). */
const CLAIM_SLACK_MS = 3_600_000;
/** Heartbeat history keeps one row a minute: a day is at most this many. */
const HEARTBEATS_PER_DAY = 24 * 60;
export const RECENT_FAILURES = 20;

export type DeviceView = ReturnType<typeof deviceView>;

export interface FleetRow {
  device: DeviceView;
  cellName: string | null;
  organizationId: string | null;
  organizationName: string | null;
  queued: number;
  sent24h: number;
  failed24h: number;
}

export type FleetFilter = 'all' | 'offline';
export const FLEET_FILTERS: readonly FleetFilter[] = ['all', 'offline'];

type Joined = NonNullable<Awaited<ReturnType<OperatorRepository['device']>>>;

export class FleetView {
  private readonly repo: OperatorRepository;
  private readonly devices: DevicesService;
  private readonly clock: Clock;

  constructor(deps: { repo: OperatorRepository; devices: DevicesService; clock: Clock }) {
    this.repo = deps.repo;
    this.devices = deps.devices;
    this.clock = deps.clock;
  }

  private window() {
    const now = this.clock.now().getTime();
    return {
      since: new Date(now - DAY_MS).toISOString(),
      claimedAfter: new Date(now - DAY_MS - CLAIM_SLACK_MS).toISOString(),
    };
  }

  private row(
    joined: Joined,
    queued: Map<string, number>,
    outcomes: Map<string, { sent: number; failed: number }>,
  ): FleetRow {
    const { cell_name, organization_id, organization_name, ...device } = joined;
    const outcome = outcomes.get(device.id);
    return {
      device: deviceView(device),
      cellName: cell_name,
      organizationId: organization_id,
      organizationName: organization_name,
      queued: device.cell_id ? (queued.get(device.cell_id) ?? 0) : 0,
      sent24h: outcome?.sent ?? 0,
      failed24h: outcome?.failed ?? 0,
    };
  }

  /** Every phone (oldest first), narrowed by the filter. */
  async fleet(filter: FleetFilter = 'all'): Promise<FleetRow[]> {
    const { since, claimedAfter } = this.window();
    const [rows, queued, outcomes] = await Promise.all([
      this.repo.fleet(),
      this.repo.queuedByCell(),
      this.repo.outcomesSince(since, claimedAfter),
    ]);
    const all = rows.map((row) => this.row(row, queued, outcomes));
    return filter === 'offline' ? all.filter((row) => !row.device.online) : all;
  }

  /** One phone's row; 404 when it is not in the inventory. */
  async device(id: string): Promise<FleetRow> {
    const joined = await this.repo.device(id);
    if (!joined) throw notFound('device');
    const { since, claimedAfter } = this.window();
    const [queued, outcomes] = await Promise.all([
      joined.cell_id ? this.repo.queuedByCell(joined.cell_id) : Promise.resolve(new Map<string, number>()),
      this.repo.outcomesSince(since, claimedAfter, id),
    ]);
    return this.row(joined, queued, outcomes);
  }

  /** Battery, charging and signal as reported over the last 24 hours, oldest first. */
  async telemetry(id: string) {
    const now = this.clock.now();
    const from = new Date(now.getTime() - DAY_MS);
    const page = await this.devices.heartbeats(id, {
      from: from.toISOString(),
      to: new Date(now.getTime() + 1).toISOString(),
      limit: HEARTBEATS_PER_DAY + 1,
    });
    return { from, to: now, points: page.heartbeats.reverse() };
  }

  recentFailures(id: string) {
    return this.repo.recentFailures(id, RECENT_FAILURES);
  }
}
