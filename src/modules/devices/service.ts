// The operator's phones: inventory and keys (admin surface), presence and telemetry (device
// surface), and the device-to-cell assignment the cells module makes through claimFree/unassign.
import type { Static } from 'typebox';
import type { Executor } from '../../db/schema.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../lib/errors.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { DevicePrincipal } from '../../operations/principals.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { constantTimeEqualHex, displayPrefix, newSecret, sha256Hex } from '../../lib/secrets.ts';
import { requirePhone } from '../../lib/phone.ts';
import { unlessTaken } from '../../db/errors.ts';
import type { DeviceChanges, DevicesRepository, Telemetry } from './repository.ts';
import type { EnrollmentsRepository } from './enrollments-repository.ts';
import type { DeviceSimsTable, DevicesTable } from './tables.ts';
import { transact } from '../../db/transaction.ts';
import { Port } from '../../lib/ports.ts';
import {
  ALL_CAPABILITIES,
  capabilitiesView,
  capabilityColumns,
  SMSGATE_CAPABILITIES,
  type StatedCapabilities,
} from './capabilities.ts';
import type { HeartbeatHistory, HeartbeatQuery } from './heartbeats.ts';
import type { HeartbeatReport } from './routes.ts';
import { recorderOf, type OperatorBy, type RecordOperatorAction } from '../admin/audit.ts';
import { decideHealth, HEALTH_WINDOW } from './health.ts';
import { BATTERY_LOW_PCT, type DeviceEventType } from './events.ts';

/** What became of a send (messages/ports.ts SendOutcome, stated here so the modules meet structurally). */
export interface SendOutcome {
  deviceId: string;
  messageId: string;
  outcome: 'sent' | 'failed' | 'stuck';
  errorCode: string | null;
  segments: number;
}

export const DEVICE_KEY_PREFIX = 'cg_dev_';
/** SMS segments per minute (contract §11): at most 30, what Android allows an unattended app. */
export const DEFAULT_SEND_RATE_PER_MINUTE = 20;
export const MAX_SEND_RATE_PER_MINUTE = 30;
/** SMS segments per 24 hours. */
export const DEFAULT_DAILY_SEND_LIMIT = 300;
/** A device silent this long is offline (contract §4). */
export const OFFLINE_AFTER_MS = 120_000;
/** last_seen_at is written at most this often per device. */
const TOUCH_INTERVAL_MS = 1_000;
/** assignment() answers from memory this long; changes made in this process clear it at once. */
const ASSIGNMENT_CACHE_MS = 1_000;
const OFFLINE_BATCH = 500;

export interface DeviceAssignment {
  deviceId: string;
  cellId: string;
  organizationId: string;
  /** The number of the cell (its SIM line's). */
  phoneNumber: string;
  /** SMS segments per minute. */
  sendRatePerMinute: number;
  /** SMS segments per 24 hours. */
  dailySendLimit: number;
  /** False while the phone is paused or quarantined: it claims nothing, but still receives (contract §11). */
  claims: boolean;
  /**
   * Every active cell the phone carries, by SIM line (contract §13: two SIMs, two cells); the
   * first is cellId. simNumber is null for a one-line phone of the native surface.
   */
  lines: DeviceLine[];
}

/** A SIM line as a phone reports it, before it carries a cell. */
export type SimLine = Omit<DeviceSimsTable, 'device_id' | 'cell_id'>;

/** A phone of the SMSGate app with its SIM lines. */
export interface Phone {
  device: DevicesTable;
  sims: DeviceSimsTable[];
}

export interface DeviceLine {
  cellId: string;
  organizationId: string;
  phoneNumber: string;
  simNumber: number | null;
}

/** Why a phone claims nothing now, as its heartbeat answer says it; null when it may claim. */
export function holdOf(row: Pick<DevicesTable, 'paused' | 'paused_reason' | 'health' | 'health_reason'>) {
  if (row.paused === 1) return { code: 'paused' as const, reason: row.paused_reason ?? 'Paused by the operator.' };
  if (row.health === 'quarantined')
    return { code: 'quarantined' as const, reason: row.health_reason ?? 'Quarantined: the operator must release it.' };
  return null;
}

/** What the cells module does when the inventory or a device changes (wired by the composition root). */
export interface DeviceHooks {
  /** Inside the transaction that added a device: give a waiting cell a device. */
  added(tx: Executor): Promise<void>;
  /** After that transaction committed: pair whatever a concurrent request left waiting. */
  afterAdded(): Promise<void>;
  /** Inside the transaction of an online/offline transition. */
  presenceChanged(tx: Executor, device: DevicesTable, online: boolean): Promise<void>;
  /** Inside the transaction where a device stated capabilities other than those stored. */
  capabilitiesChanged(tx: Executor, device: DevicesTable): Promise<void>;
  /** Inside the transaction where a device was paused, resumed, or changed health. */
  stateChanged(tx: Executor, before: DevicesTable, after: DevicesTable): Promise<void>;
}

/** Tells the operator's webhooks of a phone's transition (contract §11), in its transaction. */
export type OperatorEvents = (tx: Executor, type: DeviceEventType, device: DeviceView) => Promise<void>;

export type HeartbeatBody = Static<typeof HeartbeatReport>;

/** A SIM line as admin reads show it (contract §13), with the cell it carries and, without a number, what to do. */
export function simView(line: DeviceSimsTable) {
  return {
    slot: line.slot,
    sim_number: line.sim_number,
    phone_number: line.phone_number,
    carrier: line.carrier,
    cell_id: line.cell_id,
    reported_number: line.reported_number,
    hint:
      line.phone_number === null
        ? `The app reported ${line.reported_number ?? 'no number'} for SIM ${line.sim_number}: this line carries no cell until its number is set (PATCH /v1/admin/devices/${line.device_id} {"sims": [{"sim_number": ${line.sim_number}, "phone_number": "+..."}]}).`
        : null,
  };
}

/** Which agent runs the phone: the SMSGate app, or on the native surface the Termux agent or the simulator. */
export function agentOf(row: Pick<DevicesTable, 'agent' | 'app_version'>): 'simulator' | 'termux' | 'smsgate' {
  if (row.agent === 'smsgate') return 'smsgate';
  return row.app_version?.startsWith(TERMUX_VERSION_PREFIX) ? 'termux' : 'simulator';
}

const TERMUX_VERSION_PREFIX = 'cellgate-termux/';

export function deviceView(
  row: DevicesTable,
  counts: { sent: number; failed: number } = NO_OUTCOMES,
  sims: readonly SimView[] = [],
) {
  return {
    id: row.id,
    phone_number: row.phone_number,
    agent: agentOf(row),
    // A phone added by POST /v1/admin/devices has one line: its number.
    sims:
      sims.length > 0
        ? sims
        : [
            {
              slot: 0,
              sim_number: 1,
              phone_number: row.phone_number,
              carrier: null,
              cell_id: row.cell_id,
              reported_number: null,
              hint: null,
            },
          ],
    label: row.label,
    send_rate_per_minute: row.send_rate_per_minute,
    daily_send_limit: row.daily_send_limit,
    cell_id: row.cell_id,
    online: row.online === 1,
    last_seen_at: row.last_seen_at,
    battery_pct: row.battery_pct,
    charging: row.charging === null ? null : row.charging === 1,
    signal_dbm: row.signal_dbm,
    app_version: row.app_version,
    capabilities: capabilitiesView(row),
    paused: row.paused === 1,
    paused_reason: row.paused_reason,
    health: row.health,
    health_reason: row.health_reason,
    health_changed_at: row.health_changed_at,
    sent_24h: counts.sent,
    failed_24h: counts.failed,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const REFUSED: Record<string, string> = {
  'device.pause': 'The device is already paused.',
  'device.resume': 'The device is not paused.',
  'device.release': 'The device is healthy: only a quarantined or degraded device is released.',
};
const NO_OUTCOMES = Object.freeze({ sent: 0, failed: 0 });
const DAY_MS = 24 * 60 * 60 * 1000;
/** Send outcomes are kept as long as heartbeats: 7 days. */
const OUTCOMES_KEPT_MS = 7 * DAY_MS;

export type DeviceView = ReturnType<typeof deviceView>;
export type SimView = ReturnType<typeof simView>;
/** What the operator sets of a phone (the defaults otherwise). */
export type DeviceSettings = { label?: string | null; send_rate_per_minute?: number; daily_send_limit?: number };

const keyColumns = (key: string) => ({ key_prefix: displayPrefix(key), key_hash: sha256Hex(key) });
const duplicateNumber = () => new ApiError('conflict', 'A device with this phone number is already in the inventory.');

/** 409 for a number another phone or line carries: one number, one line (contract §13). */
export const numberTaken = (field: string, phoneNumber: string) => {
  const message = `${phoneNumber} is already carried by a phone of the inventory (its number or a SIM line's).`;
  return new ApiError('conflict', message, { errors: [{ field, code: 'phone_number_taken', message }] });
};

export class DevicesService {
  private readonly repo: DevicesRepository;
  /** The SIM lines of SMSGate phones. */
  readonly lines: EnrollmentsRepository;
  private readonly clock: Clock;
  private readonly history: HeartbeatHistory;
  /** An operator's action on a device, in the operator audit log. */
  private readonly record: ReturnType<typeof recorderOf>;
  readonly ports = {
    hooks: new Port<DeviceHooks>('devices', 'hooks'),
    operatorEvents: new Port<OperatorEvents>('devices', 'operatorEvents'),
  };
  private readonly lastTouch = new Map<string, number>();
  private readonly assignments = new Map<string, { value: DeviceAssignment | null; until: number }>();

  constructor(deps: {
    repo: DevicesRepository;
    lines: EnrollmentsRepository;
    clock: Clock;
    history: HeartbeatHistory;
    audit: RecordOperatorAction;
  }) {
    this.lines = deps.lines;
    this.record = recorderOf(deps.audit, 'device');
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.history = deps.history;
  }

  private get hooks(): DeviceHooks {
    return this.ports.hooks.value;
  }

  // --- admin surface -------------------------------------------------------------------------

  async create(input: DeviceSettings & { phone_number: string }, by: OperatorBy) {
    const phoneNumber = requirePhone('phone_number', input.phone_number);
    if (await this.repo.numberTaken(this.repo.db, phoneNumber)) throw duplicateNumber();
    const key = newSecret(DEVICE_KEY_PREFIX);
    const row = this.newRow({ ...input, phone_number: phoneNumber }, key);
    await transact(this.repo.db, (tx) => this.insert(tx, row, by));
    await this.hooks.afterAdded();
    return { ...(await this.get(row.id)), device_key: key };
  }

  /**
   * In the caller's transaction (an enrollment's redemption): adds a phone running the SMSGate
   * app with its SIM lines and the given token, recorded as the enrolling admin's. A line's number
   * another phone or line carries is a 409 (`field` names the SIM card). The phone's own number is
   * its first line's with a number; none when the app redacted them all. The caller runs
   * afterAdded() once it commits.
   */
  async insertEnrolled(
    tx: Executor,
    input: DeviceSettings,
    lines: readonly SimLine[],
    extra: { token: string; signingKey: string; pushToken: string | null },
    by: OperatorBy,
  ): Promise<DevicesTable> {
    for (const [i, { phone_number: number }] of lines.entries()) {
      if (number === null) continue;
      const twice = lines.slice(0, i).some((line) => line.phone_number === number);
      if (twice || (await this.repo.numberTaken(tx, number))) throw numberTaken(`simCards.${i}.phoneNumber`, number);
    }
    const phoneNumber = lines.find((line) => line.phone_number !== null)?.phone_number ?? null;
    const row: DevicesTable = {
      ...this.newRow({ ...input, phone_number: phoneNumber }, extra.token),
      ...capabilityColumns(SMSGATE_CAPABILITIES),
      agent: 'smsgate',
      signing_key: extra.signingKey,
      push_token: extra.pushToken,
    };
    await this.lines.replaceSims(
      tx,
      row.id,
      lines.map((line) => ({ ...line, device_id: row.id, cell_id: null })),
    );
    await this.insert(tx, row, by);
    return row;
  }

  /** Runs after a transaction that added devices committed: pairs cells left waiting. */
  afterAdded(): Promise<void> {
    return this.hooks.afterAdded();
  }

  private newRow(input: DeviceSettings & { phone_number: string | null }, key: string): DevicesTable {
    const now = this.clock.now();
    const iso = now.toISOString();
    return {
      id: newId('dev', this.clock, now),
      phone_number: input.phone_number,
      label: input.label ?? null,
      send_rate_per_minute: input.send_rate_per_minute ?? DEFAULT_SEND_RATE_PER_MINUTE,
      ...keyColumns(key),
      cell_id: null,
      online: 0,
      last_seen_at: null,
      battery_pct: null,
      charging: null,
      signal_dbm: null,
      app_version: null,
      ...capabilityColumns(ALL_CAPABILITIES),
      paused: 0,
      paused_reason: null,
      health: 'healthy',
      health_reason: null,
      health_changed_at: null,
      health_reset_at: null,
      daily_send_limit: input.daily_send_limit ?? DEFAULT_DAILY_SEND_LIMIT,
      battery_low: 0,
      agent: 'native',
      signing_key: null,
      push_token: null,
      created_at: iso,
      updated_at: iso,
    };
  }

  private async insert(tx: Executor, row: DevicesTable, by: OperatorBy): Promise<void> {
    // Two admins adding the same number at once.
    await unlessTaken(this.repo.insert(tx, row), duplicateNumber);
    await this.record(tx, by, 'device.create', row.id, {
      phone_number: row.phone_number,
      label: row.label,
      send_rate_per_minute: row.send_rate_per_minute,
      daily_send_limit: row.daily_send_limit,
      ...(row.agent === 'native' ? {} : { agent: row.agent }),
    });
    await this.hooks.added(tx);
  }

  async list(query: PageQuery) {
    const result = await pageById(query, (before, count) => this.repo.list(before, count));
    return { devices: await this.views(result.items), next_cursor: result.next_cursor };
  }

  async get(id: string) {
    const row = orNotFound(await this.repo.find(this.repo.db, id), 'device');
    return (await this.views([row]))[0];
  }

  /** Devices as the admin surface shows them, with their sends and failures of the last 24 hours. */
  async views(rows: readonly DevicesTable[], ex: Executor = this.repo.db): Promise<DeviceView[]> {
    const since = new Date(this.clock.now().getTime() - DAY_MS).toISOString();
    const ids = rows.map((row) => row.id);
    const counts = await this.repo.outcomeCounts(ids, since, ex);
    const sims = rows.some((row) => row.agent === 'smsgate') ? await this.lines.sims(ex, ids) : [];
    const lines = Map.groupBy(sims, (sim) => sim.device_id);
    return rows.map((row) => deviceView(row, counts.get(row.id), lines.get(row.id)?.map(simView)));
  }

  /** An operator event about `device` (as it is in `tx`), written in the transaction of the change. */
  private async announce(tx: Executor, type: DeviceEventType, device: DevicesTable): Promise<void> {
    const [view] = await this.views([device], tx);
    await this.ports.operatorEvents.value(tx, type, view);
  }

  /**
   * A pause, resume or health change, in its transaction: the cells module follows, and the operator
   * hears device.unhealthy when the phone turns degraded or quarantined, device.recovered when healthy again.
   */
  private async stateChanged(tx: Executor, before: DevicesTable, after: DevicesTable): Promise<void> {
    await this.hooks.stateChanged(tx, before, after);
    if (after.health === before.health) return;
    await this.announce(tx, after.health === 'healthy' ? 'device.recovered' : 'device.unhealthy', after);
  }

  /** The operator holds the phone: it claims nothing until resumed (contract §11). 409 when already paused. */
  pause(id: string, by: OperatorBy & { reason: string }) {
    return this.operatorChange(id, by, 'device.pause', (tx, now) => this.repo.setPaused(tx, id, true, by.reason, now));
  }

  /** The phone claims again (unless quarantined). 409 when it is not paused. */
  resume(id: string, by: OperatorBy & { reason: string }) {
    return this.operatorChange(id, by, 'device.resume', (tx, now) => this.repo.setPaused(tx, id, false, null, now));
  }

  /**
   * Quarantined (or degraded) → healthy: the operator vouches for the SIM. Outcomes before now no
   * longer count, so the old failures do not quarantine it again. 409 when it is healthy.
   */
  release(id: string, by: OperatorBy & { reason: string }) {
    return this.operatorChange(id, by, 'device.release', (tx, now) =>
      this.repo.setHealth(tx, id, 'unhealthy', { health: 'healthy', reason: null, now, resetAt: now }),
    );
  }

  private async operatorChange(
    id: string,
    by: OperatorBy,
    action: string,
    change: (tx: Executor, now: string) => Promise<DevicesTable | undefined>,
  ) {
    const now = this.clock.now().toISOString();
    await transact(this.repo.db, async (tx) => {
      const before = orNotFound(await this.repo.find(tx, id), 'device');
      const device = await change(tx, now);
      if (!device) throw new ApiError('conflict', REFUSED[action]);
      await this.record(tx, by, action, id);
      await this.stateChanged(tx, before, device);
    });
    this.forgetAssignment(id);
    return this.get(id);
  }

  /** The operator changes a phone's settings and SIM lines' numbers (contract §13; the errors: update_device's). */
  async update(
    id: string,
    input: DeviceChanges & { sims?: { sim_number: number; phone_number: string }[] },
    by: OperatorBy,
  ) {
    const { sims, ...changes } = input;
    const numbers = (sims ?? []).map((sim, i) => {
      if (sims!.findIndex((other) => other.sim_number === sim.sim_number) !== i)
        throw invalidField(`sims.${i}.sim_number`, 'duplicate', `SIM ${sim.sim_number} is given twice.`);
      return { ...sim, phone_number: requirePhone(`sims.${i}.phone_number`, sim.phone_number) };
    });
    const given = await transact(this.repo.db, async (tx) => {
      if ((await this.repo.update(tx, id, { ...changes, updated_at: this.clock.now().toISOString() })) === 0)
        throw notFound('device');
      const lines = numbers.length > 0 ? await this.lines.sims(tx, [id]) : [];
      let count = 0;
      for (const [i, sim] of numbers.entries()) {
        const line = lines.find((candidate) => candidate.sim_number === sim.sim_number);
        if (!line)
          throw invalidField(
            `sims.${i}.sim_number`,
            'unknown_sim',
            lines.length === 0
              ? 'This phone has one line, its phone_number: SIM lines are those an SMSGate phone reported.'
              : `The phone reported no SIM ${sim.sim_number} (it has ${lines.map((l) => l.sim_number).join(' and ')}).`,
          );
        if (line.phone_number === sim.phone_number) continue;
        if (line.cell_id !== null) {
          const message = `SIM ${sim.sim_number} carries cell ${line.cell_id} with ${line.phone_number}: release the cell before changing its number.`;
          throw new ApiError('conflict', message, {
            errors: [{ field: `sims.${i}.phone_number`, code: 'line_carries_cell', message }],
          });
        }
        await this.giveLineNumber(tx, id, sim.sim_number, sim.phone_number, `sims.${i}.phone_number`);
        count += 1;
      }
      await this.record(tx, by, 'device.update', id, { ...changes, ...(sims ? { sims: numbers } : {}) });
      return count;
    });
    this.forgetAssignment(id);
    // A line given a number can carry a cell: a waiting one takes it now.
    if (given > 0) await this.hooks.afterAdded();
    return this.get(id);
  }

  /** A SIM line's number, in `tx`: 409 when another phone or line carries it; the phone's own number if it had none. */
  private async giveLineNumber(tx: Executor, id: string, simNumber: number, phoneNumber: string, field: string) {
    if (await this.repo.numberTaken(tx, phoneNumber, { deviceId: id, simNumber }))
      throw numberTaken(field, phoneNumber);
    // Two admins giving one number at once.
    await unlessTaken(this.lines.setSimNumber(tx, id, simNumber, phoneNumber), () => numberTaken(field, phoneNumber));
    await this.repo.setNumberIfNone(tx, id, phoneNumber);
  }

  async remove(id: string, by: OperatorBy): Promise<void> {
    const removed = await transact(this.repo.db, async (tx) => {
      const deleted = await this.repo.deleteFree(tx, id);
      if (!deleted) return false;
      await this.lines.deleteSims(tx, id);
      await this.record(tx, by, 'device.delete', id, { phone_number: deleted.phone_number });
      return true;
    });
    if (removed) {
      this.lastTouch.delete(id);
      this.forgetAssignment(id);
      await this.history.forget(id);
      return;
    }
    if (await this.repo.find(this.repo.db, id)) {
      throw new ApiError(
        'conflict',
        'The device carries a cell; the cell must be released (DELETE /v1/cells/{id}) before the device is removed.',
      );
    }
    throw notFound('device');
  }

  /** A new device key (the old one stops at once); recorded in the operator audit log. */
  async rotateKey(id: string, by: OperatorBy) {
    const key = newSecret(DEVICE_KEY_PREFIX);
    await transact(this.repo.db, async (tx) => {
      const updated = await this.repo.update(tx, id, {
        ...keyColumns(key),
        updated_at: this.clock.now().toISOString(),
      });
      if (updated === 0) throw notFound('device');
      await this.record(tx, by, 'device.rotate_key', id);
    });
    return { ...(await this.get(id)), device_key: key };
  }

  /** A page of what the phone reported, newest first (7 days kept). */
  async heartbeats(id: string, query: HeartbeatQuery) {
    if (!(await this.repo.find(this.repo.db, id))) throw notFound('device');
    return this.history.list(id, query);
  }

  /** Deletes heartbeat history and send outcomes past their 7 days; how many rows. */
  async pruneHeartbeats(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - OUTCOMES_KEPT_MS).toISOString();
    return (await this.history.prune()) + (await this.repo.pruneOutcomes(cutoff));
  }

  /** The phone's newest failed or stuck sends with their error codes, newest first. */
  recentFailures(id: string, limit = 20) {
    return this.repo.recentFailures(id, limit);
  }

  /**
   * In the transaction of a device report or a lease expiry: keeps the outcome and decides the
   * phone's health again (contract §11). A success on a healthy phone changes nothing, so the
   * common path is one insert and one read.
   */
  async recordOutcome(tx: Executor, outcome: SendOutcome): Promise<void> {
    const now = this.clock.now().toISOString();
    await this.repo.insertOutcome(tx, {
      device_id: outcome.deviceId,
      message_id: outcome.messageId,
      outcome: outcome.outcome,
      error_code: outcome.errorCode,
      segments: outcome.segments,
      created_at: now,
    });
    const device = await this.repo.find(tx, outcome.deviceId);
    if (!device || device.health === 'quarantined') return;
    if (outcome.outcome === 'sent' && device.health === 'healthy') return;
    const recent = await this.repo.recentOutcomes(tx, device.id, device.health_reset_at, HEALTH_WINDOW);
    const decision = decideHealth(device.health, recent);
    if (decision.health === device.health && decision.reason === device.health_reason) return;
    const changed = await this.repo.setHealth(tx, device.id, device.health, { ...decision, now });
    if (!changed) return;
    this.forgetAssignment(device.id);
    await this.stateChanged(tx, device, changed);
  }

  // --- device surface ------------------------------------------------------------------------

  /**
   * The device behind an X-Phone-Key, or null. Keys are looked up on every request (no cache), so
   * a rotation or removal takes effect at once in every process. Marks the device seen, unless
   * `markSeen` is false (a route that is no sign of the phone app running: the doctor's check).
   */
  async authenticate(key: string, options: { markSeen?: boolean } = {}): Promise<DevicePrincipal | null> {
    if (!key.startsWith(DEVICE_KEY_PREFIX)) return null;
    const hash = sha256Hex(key);
    const row = await this.repo.findByKeyHash(hash);
    if (!row || !constantTimeEqualHex(row.key_hash, hash)) return null;
    if (options.markSeen !== false) await this.markSeen(row.id);
    return { deviceId: row.id };
  }

  /** Records that the device called; brings it back online (and tells the cells module) if it was offline. */
  async markSeen(deviceId: string): Promise<void> {
    const nowMs = this.clock.now().getTime();
    const last = this.lastTouch.get(deviceId);
    // Within the interval the device cannot have gone offline (that takes 120 s of silence).
    if (last !== undefined && nowMs >= last && nowMs - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouch.size > 100_000) this.lastTouch.clear();
    this.lastTouch.set(deviceId, nowMs);
    const now = new Date(nowMs).toISOString();
    if ((await this.repo.touchOnline(deviceId, now)) === 1) return;
    await transact(this.repo.db, async (tx) =>
      this.presenceChanged(tx, await this.repo.markOnline(tx, deviceId, now), true),
    );
  }

  async heartbeat(deviceId: string, telemetry: HeartbeatBody) {
    const changes: Telemetry = {};
    if (telemetry.battery_pct !== undefined) changes.battery_pct = telemetry.battery_pct;
    if (telemetry.charging !== undefined) changes.charging = telemetry.charging ? 1 : 0;
    if (telemetry.signal_dbm !== undefined) changes.signal_dbm = telemetry.signal_dbm;
    if (telemetry.app_version !== undefined) changes.app_version = telemetry.app_version;
    if (changes.battery_pct !== undefined || changes.charging !== undefined) await this.saveBattery(deviceId, changes);
    else if (Object.keys(changes).length > 0) await this.repo.saveTelemetry(this.repo.db, deviceId, changes);
    await this.history.record(deviceId, telemetry);
    // A heartbeat without capabilities keeps the stored ones, as it keeps the telemetry it leaves out.
    if (telemetry.capabilities !== undefined) await this.stateCapabilities(deviceId, telemetry.capabilities);
    return this.config(deviceId);
  }

  /**
   * Telemetry with the battery in it, and the battery-low flag it moves: one device.battery_low
   * per dip below 15 % without charging (contract §11); charging or climbing back ends the dip.
   */
  private async saveBattery(deviceId: string, changes: Telemetry): Promise<void> {
    await transact(this.repo.db, async (tx) => {
      const device = await this.repo.saveTelemetry(tx, deviceId, changes);
      if (!device) return;
      const low = device.battery_pct !== null && device.battery_pct < BATTERY_LOW_PCT && device.charging !== 1;
      if (low === (device.battery_low === 1)) return;
      const changed = await this.repo.setBatteryLow(tx, deviceId, low);
      if (changed && low) await this.announce(tx, 'device.battery_low', changed);
    });
  }

  /** The phone's configuration, as a heartbeat answers it. */
  async config(deviceId: string) {
    const device = await this.repo.find(this.repo.db, deviceId);
    if (!device) throw new ApiError('unauthenticated', 'The device was removed from the inventory.');
    return {
      device_id: device.id,
      cell_id: device.cell_id,
      phone_number: device.phone_number,
      send_rate_per_minute: device.send_rate_per_minute,
      daily_send_limit: device.daily_send_limit,
      paused: device.paused === 1,
      health: device.health,
      hold: holdOf(device),
      server_time: this.clock.now().toISOString(),
    };
  }

  private async stateCapabilities(deviceId: string, stated: StatedCapabilities): Promise<void> {
    await transact(this.repo.db, async (tx) => {
      const device = await this.repo.saveCapabilitiesIfChanged(tx, deviceId, capabilityColumns(stated));
      if (device) await this.hooks.capabilitiesChanged(tx, device);
    });
  }

  /** An online/offline transition this call made (none: `device` undefined), in its transaction; the device. */
  private async presenceChanged(tx: Executor, device: DevicesTable | undefined, online: boolean) {
    if (!device) return undefined;
    await this.hooks.presenceChanged(tx, device, online);
    await this.announce(tx, online ? 'device.online' : 'device.offline', device);
    return device;
  }

  /** Takes devices silent for OFFLINE_AFTER_MS offline, one transaction each; how many went offline. */
  async markSilentOffline(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - OFFLINE_AFTER_MS).toISOString();
    let count = 0;
    for (;;) {
      const silent = await this.repo.silentIds(cutoff, OFFLINE_BATCH);
      for (const { id } of silent) {
        const device = await transact(this.repo.db, async (tx) =>
          this.presenceChanged(tx, await this.repo.markOfflineIfSilent(tx, id, cutoff), false),
        );
        if (device) count += 1;
      }
      if (silent.length < OFFLINE_BATCH) return count;
    }
  }

  /**
   * The cells the phone carries, in `ex`: the one of devices.cell_id, and on an SMSGate phone each
   * SIM line's (two SIMs, two cells: contract §13), first line first.
   */
  async cellsCarried(ex: Executor, device: DevicesTable): Promise<string[]> {
    const first = device.cell_id === null ? [] : [device.cell_id];
    if (device.agent !== 'smsgate') return first;
    const lines = (await this.lines.sims(ex, [device.id])).map((sim) => sim.cell_id);
    return [...new Set([...first, ...lines])].filter((id): id is string => id !== null);
  }

  // --- the SMSGate app (/mobile/v1) ----------------------------------------------------------

  /** The phone with its SIM lines, or null when it left the inventory. */
  async phone(deviceId: string): Promise<Phone | null> {
    const device = await this.repo.find(this.repo.db, deviceId);
    if (!device) return null;
    return { device, sims: await this.lines.sims(this.repo.db, [deviceId]) };
  }

  /**
   * The app's PATCH /device: its push token and SIM cards. A line keeps the number it has (the
   * operator's, or the one it was registered with) and the cell it carries, even when the app
   * leaves the line out; a line without a number takes a full number the app reports, if no other
   * phone or line carries it. What the app shows where it gives no usable number is kept as a hint.
   */
  async saveAppState(deviceId: string, state: { pushToken?: string | null; sims?: SimLine[] }): Promise<void> {
    const numbered = await transact(this.repo.db, async (tx) => {
      if (state.pushToken !== undefined) await this.repo.setPushToken(tx, deviceId, state.pushToken);
      if (!state.sims) return false;
      const before = new Map((await this.lines.sims(tx, [deviceId])).map((line) => [line.sim_number, line] as const));
      const rows: DeviceSimsTable[] = [];
      let gained = false;
      // Numbers kept or given in this report: two SIM cards cannot both have one.
      const given = new Set(state.sims.map((sim) => before.get(sim.sim_number)?.phone_number).filter(Boolean));
      for (const sim of state.sims) {
        const old = before.get(sim.sim_number);
        before.delete(sim.sim_number);
        const reported = sim.phone_number;
        const kept = old?.phone_number ?? null;
        const taken =
          kept === null &&
          reported !== null &&
          (given.has(reported) || (await this.repo.numberTaken(tx, reported, { deviceId, simNumber: sim.sim_number })));
        const number = kept ?? (taken ? null : reported);
        if (number !== null) given.add(number);
        gained ||= kept === null && number !== null;
        rows.push({
          ...sim,
          device_id: deviceId,
          phone_number: number,
          // What the app showed: its unusable number, or a full one carried elsewhere; none for a usable one.
          reported_number:
            sim.reported_number ?? (reported === null ? (old?.reported_number ?? null) : taken ? reported : null),
          cell_id: old?.cell_id ?? null,
        });
      }
      // A SIM the app no longer lists keeps its line while it carries a cell (the cell is released first).
      for (const old of before.values()) if (old.cell_id !== null) rows.push(old);
      await this.lines.replaceSims(tx, deviceId, rows);
      const first = rows.find((row) => row.phone_number !== null);
      if (first?.phone_number) await this.repo.setNumberIfNone(tx, deviceId, first.phone_number);
      // A line that got its number now can carry a cell.
      return gained;
    });
    this.forgetAssignment(deviceId);
    if (numbered) await this.hooks.afterAdded();
  }

  // --- assignment (used by the cells and messages modules) -----------------------------------

  /** The phone carrying this cell and its send rate; undefined when none does. */
  phoneOfCell(cellId: string) {
    return this.repo.findByCell(cellId);
  }

  /**
   * The active cell this device carries, or null. Runs on every device poll, so it is cached
   * briefly. A paused or quarantined phone keeps its cell (`claims: false`): it sends nothing, and
   * what it receives is still stored on the cell (issue 33).
   */
  async assignment(deviceId: string): Promise<DeviceAssignment | null> {
    const nowMs = this.clock.now().getTime();
    const cached = this.assignments.get(deviceId);
    if (cached && nowMs < cached.until) return cached.value;
    const rows = await this.repo.findWithCells(deviceId);
    const lines: DeviceLine[] = [];
    for (const line of rows)
      if (line.cell_id && line.organization_id && line.cell_number && line.cell_status === 'active')
        lines.push({
          cellId: line.cell_id,
          organizationId: line.organization_id,
          phoneNumber: line.cell_number,
          simNumber: line.sim_number,
        });
    const row = rows[0];
    const value =
      row && lines.length > 0
        ? {
            deviceId: row.id,
            cellId: lines[0].cellId,
            organizationId: lines[0].organizationId,
            phoneNumber: lines[0].phoneNumber,
            sendRatePerMinute: row.send_rate_per_minute,
            dailySendLimit: row.daily_send_limit,
            // A paused or quarantined phone carries its cells but claims nothing (contract §11).
            claims: row.paused === 0 && row.health !== 'quarantined',
            lines,
          }
        : null;
    if (this.assignments.size > 100_000) this.assignments.clear();
    this.assignments.set(deviceId, { value, until: nowMs + ASSIGNMENT_CACHE_MS });
    return value;
  }

  /** Drops the cached assignment of a device; call after a transaction that changed it commits. */
  forgetAssignment(deviceId: string): void {
    this.assignments.delete(deviceId);
  }

  /** Whether a line is free for the next cell (claimFree would find one). */
  async anyFree(ex: Executor = this.repo.db): Promise<boolean> {
    return (await this.repo.oldestFreeNative(ex)) !== undefined || (await this.repo.oldestFreeLine(ex)) !== undefined;
  }

  /**
   * Gives the oldest free line to `cellId` inside the caller's transaction: a one-line phone of the
   * native surface, or a SIM line with a number of an SMSGate phone (contract §13); the device and
   * the line's number, or null when none is free. The conditional update makes two concurrent
   * claims of one line impossible: the loser updates 0 rows and tries the next free line.
   * devices.cell_id names the cell of the phone's first line that carries one.
   */
  async claimFree(tx: Executor, cellId: string): Promise<{ id: string; phone_number: string } | null> {
    const now = this.clock.now().toISOString();
    for (;;) {
      const native = await this.repo.oldestFreeNative(tx);
      const line = await this.repo.oldestFreeLine(tx);
      if (!native && !line) return null;
      if (line?.phone_number && (!native || line.id < native.id)) {
        if ((await this.repo.assignLineIfFree(tx, line.id, line.sim_number, cellId)) === 0) continue;
        await this.repo.assignIfFree(tx, line.id, cellId, now);
        this.forgetAssignment(line.id);
        return { id: line.id, phone_number: line.phone_number };
      }
      if (native && (await this.repo.assignIfFree(tx, native.id, cellId, now)) === 1) {
        this.forgetAssignment(native.id);
        return native;
      }
    }
  }

  /** Frees the device carrying `cellId` inside the caller's transaction; its id, if any. */
  async unassign(tx: Executor, cellId: string): Promise<string | null> {
    const deviceId = await this.repo.unassign(tx, cellId, this.clock.now().toISOString());
    if (deviceId) this.forgetAssignment(deviceId);
    return deviceId;
  }
}
