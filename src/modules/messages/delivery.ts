// Outbound delivery (contract §4): devices lease queued messages by long-poll and report what
// became of them. Also the lease and queue expiry the worker drives, and the failure of open
// messages when their cell is released. Inbound uploads are in inbound.ts.
import { ApiError, orNotFound } from '../../lib/errors.ts';
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { EventsService } from '../events/service.ts';
import type { EventType } from '../events/types.ts';
import { OPEN_STATUSES, transitionFor, type DeviceReport, type MessageStatus } from './lifecycle.ts';
import { emitMessageEvent } from './message-events.ts';
import type { ChargesPort, DeviceAssignment, DevicesPort, OutcomesPort } from './ports.ts';
import { Port } from '../../lib/ports.ts';
import { roomOf, windowsAt, withinPacing } from './pace.ts';
import type { ClaimOrder, MessagesRepository } from './repository.ts';
import { QUEUE_TTL_MS } from './service.ts';
import type { MessagesTable } from './tables.ts';
import { leasedMessageView, messageView } from './views.ts';
import type { CellWakeups } from './wakeups.ts';
import { transact } from '../../db/transaction.ts';
import { countBy, type StoredCaps } from '../../operations/stored-caps.ts';

export const LEASE_MS = 120_000;
export const MAX_ATTEMPTS = 3;

/**
 * The earliest moment a leased message can be failed for good: its lease, then one lease for each
 * attempt it has left (every attempt is a claim and a whole lease). Before it, a late send of
 * this claim still lands on a message that is not final.
 */
export function finalExpiryOf(message: Pick<MessagesTable, 'lease_expires_at' | 'attempts'>): string | null {
  if (message.lease_expires_at === null) return null;
  const left = Math.max(0, MAX_ATTEMPTS - message.attempts);
  return new Date(Date.parse(message.lease_expires_at) + left * LEASE_MS).toISOString();
}
/** Long-polls re-check this often, to find sends made by other processes. */
const RECHECK_MS = 250;
const EXPIRY_BATCH = 500;

interface Deps {
  repo: MessagesRepository;
  devices: DevicesPort;
  events: EventsService;
  clock: Clock;
  wakeups: CellWakeups;
  storedCaps: StoredCaps;
}

export class DeliveryService {
  private readonly repo: MessagesRepository;
  private readonly devices: DevicesPort;
  private readonly events: EventsService;
  private readonly clock: Clock;
  private readonly wakeups: CellWakeups;
  private readonly storedCaps: StoredCaps;
  /** Aborted when the process shuts down: long-polls answer at once instead of holding the close. */
  private readonly closing = new AbortController();
  private polls = 0;
  /** Wired by the composition root: billing refunds what never went out. */
  readonly ports = {
    charges: new Port<ChargesPort>('delivery', 'charges'),
    /** Wired by the composition root: the devices module judges each phone's health from its outcomes. */
    outcomes: new Port<OutcomesPort>('delivery', 'outcomes'),
  };

  constructor(deps: Deps) {
    this.repo = deps.repo;
    this.devices = deps.devices;
    this.events = deps.events;
    this.clock = deps.clock;
    this.wakeups = deps.wakeups;
    this.storedCaps = deps.storedCaps;
  }

  /**
   * Leases up to `limit` queued messages of the device's cell, waiting up to `waitMs` (real time)
   * for some to arrive. Stops waiting when `signal` aborts (the client went away). Oldest first,
   * unless `order` asks for the newest first (the SMSGate app's `order=lifo`).
   */
  async claim(deviceId: string, limit: number, waitMs: number, hangUp: AbortSignal, order: ClaimOrder = 'fifo') {
    return { messages: (await this.claimRows(deviceId, limit, waitMs, hangUp, order)).map(leasedMessageView) };
  }

  /** claim(), answering the leased rows (for a door that writes its own message shape). */
  async claimRows(
    deviceId: string,
    limit: number,
    waitMs: number,
    hangUp: AbortSignal,
    order: ClaimOrder = 'fifo',
  ): Promise<MessagesTable[]> {
    const deadline = performance.now() + waitMs; // elapsed real time, not a date
    const signal = AbortSignal.any([hangUp, this.closing.signal]);
    this.polls += 1;
    try {
      // Woken by a send to one of its cells: a message waits, so the read that looks first is skipped.
      let woken = false;
      for (;;) {
        const assignment = await this.devices.assignment(deviceId);
        const claimed = assignment?.claims ? await this.tryClaim(assignment, limit, order, woken) : [];
        const left = deadline - performance.now();
        if (claimed.length > 0 || left <= 0 || signal.aborted) return claimed;
        // A device without a cell waits on its own id, which no send wakes: a plain re-check delay.
        woken = await this.wakeups.wait(cellsOf(assignment) ?? deviceId, Math.min(RECHECK_MS, left), signal);
      }
    } finally {
      this.polls -= 1;
    }
  }

  /**
   * For a push channel (the SMSGate app's SSE): the cells the device sends for (one per SIM line),
   * and whether a message waits there that it could claim now. Nothing waits for a paused or
   * quarantined phone.
   */
  async waiting(deviceId: string): Promise<{ cellIds: string[] | null; waiting: boolean }> {
    const assignment = await this.devices.assignment(deviceId);
    const cellIds = cellsOf(assignment);
    if (!assignment?.claims) return { cellIds, waiting: false };
    return { cellIds, waiting: await this.claimable(assignment, this.clock.now().toISOString()) };
  }

  /** Resolves true on the next send queued for one of `cellIds` (this process); false after `ms`, or when `signal` aborts or the server closes. */
  waitForSend(cellIds: string | readonly string[], ms: number, signal: AbortSignal): Promise<boolean> {
    return this.wakeups.wait(cellIds, ms, AbortSignal.any([signal, this.closing.signal]));
  }

  /** Claims in progress in this process, long-polls included (a gauge; tests wait on it). */
  get activePolls(): number {
    return this.polls;
  }

  /** Ends every long-poll wait (on shutdown). */
  stopWaiting(): void {
    this.closing.abort();
  }

  get shuttingDown(): boolean {
    return this.closing.signal.aborted;
  }

  private async tryClaim(
    assignment: DeviceAssignment,
    limit: number,
    order: ClaimOrder,
    woken: boolean,
  ): Promise<MessagesTable[]> {
    const now = this.clock.now();
    const at = now.toISOString();
    // Most polls find nothing: a read outside the transaction spares them its lock.
    if (!woken && !(await this.claimable(assignment, at))) return [];
    return transact(this.repo.db, async (tx) => {
      await this.repo.lockDeviceClaims(tx, assignment.deviceId);
      // Pacing counts the SMS segments handed to the phone (contract §11): per minute and per 24 hours.
      const claimed = await this.repo.segmentsClaimedSince(tx, assignment.deviceId, windowsAt(now));
      const candidates = await this.firstQueued(tx, assignment, at, limit, order);
      const ids = withinPacing(candidates, roomOf(assignment, claimed));
      if (ids.length === 0) return [];
      const leased = await this.repo.claimIds(tx, {
        ids,
        deviceId: assignment.deviceId,
        now: at,
        leaseExpiresAt: new Date(now.getTime() + LEASE_MS).toISOString(),
      });
      return order === 'lifo' ? leased.reverse() : leased;
    });
  }

  /** Whether a message waits on one of the phone's cells (one per SIM line). */
  private async claimable(assignment: DeviceAssignment, at: string): Promise<boolean> {
    for (const line of assignment.lines) if (await this.repo.hasClaimable(line.cellId, at)) return true;
    return false;
  }

  /** The first queued messages in `order` across the phone's cells (at most two: one per SIM line). */
  private async firstQueued(tx: Executor, assignment: DeviceAssignment, at: string, limit: number, order: ClaimOrder) {
    if (assignment.lines.length === 1) return this.repo.firstQueued(tx, assignment.cellId, at, limit, order);
    const found = [];
    for (const line of assignment.lines)
      found.push(...(await this.repo.firstQueued(tx, line.cellId, at, limit, order)));
    const sign = order === 'lifo' ? -1 : 1;
    return found.sort((a, b) => (a.id < b.id ? -sign : a.id > b.id ? sign : 0)).slice(0, limit);
  }

  /** Applies a device's report on a message leased to it; a repeated event_id changes nothing. */
  async report(deviceId: string, messageId: string, input: { event_id: string } & DeviceReport) {
    const now = this.clock.now().toISOString();
    return transact(this.repo.db, async (tx) => {
      const message = orNotFound(await this.repo.findForUpdate(tx, messageId), 'message');
      // Recorded first (one statement on the common path); a refusal below rolls it back.
      const recorded = await this.repo.recordDeviceEvent(tx, {
        device_id: deviceId,
        event_id: input.event_id,
        message_id: message.id,
        event: input.event,
        created_at: now,
      });
      if (!recorded) {
        const seen = await this.repo.findDeviceEvent(tx, deviceId, input.event_id);
        if (seen && seen.message_id !== message.id)
          throw new ApiError('conflict', `event_id ${input.event_id} was already used for another message.`);
        return messageView(message);
      }
      if (message.device_id !== deviceId) throw new ApiError('conflict', 'This message is not leased to this device.');
      const transition = transitionFor(message, input, now);
      if (!transition) return messageView(message);
      const updated = await this.repo.update(tx, message.id, transition.patch);
      if (transition.emit) await this.emit(tx, updated, transition.emit);
      // A phone's health follows what became of its sends: first sent (or delivered), or failed.
      const outcome = transition.emit === 'message.failed' ? 'failed' : message.status === 'sending' ? 'sent' : null;
      if (outcome)
        await this.ports.outcomes.value.record(tx, {
          deviceId,
          messageId: message.id,
          outcome,
          errorCode: outcome === 'failed' ? updated.error_code : null,
          segments: message.segments,
        });
      return messageView(updated);
    });
  }

  /** Worker step: expired leases go back to the queue, or fail once their attempts are spent. */
  async expireLeases(): Promise<number> {
    const now = this.clock.now();
    const at = now.toISOString();
    // Who held each expired lease: a send stuck in `sending` counts against that phone's health.
    const holders = new Map(
      (await this.repo.expiredLeaseHolders(at, EXPIRY_BATCH)).map((row) => [row.id, row] as const),
    );
    const stuck = async (tx: Executor, ids: readonly string[]) => {
      for (const id of ids) {
        const held = holders.get(id);
        if (held?.device_id)
          await this.ports.outcomes.value.record(tx, {
            deviceId: held.device_id,
            messageId: id,
            outcome: 'stuck',
            errorCode: null,
            segments: held.segments,
          });
      }
    };
    const requeued = await transact(this.repo.db, async (tx) => {
      const rows = await this.repo.requeueExpiredLeases(tx, {
        now: at,
        expiresAt: new Date(now.getTime() + QUEUE_TTL_MS).toISOString(),
        maxAttempts: MAX_ATTEMPTS,
        batch: EXPIRY_BATCH,
      });
      await stuck(
        tx,
        rows.map((row) => row.id),
      );
      return rows;
    });
    for (const cellId of new Set(requeued.map((row) => row.cell_id))) this.wakeups.notify(cellId);
    const failed = await this.failAndEmit(async (tx) => {
      const rows = await this.repo.failExhaustedLeases(tx, {
        now: at,
        maxAttempts: MAX_ATTEMPTS,
        batch: EXPIRY_BATCH,
        error: {
          code: 'attempts_exhausted',
          message: `The device did not confirm sending after ${MAX_ATTEMPTS} attempts.`,
        },
      });
      await stuck(
        tx,
        rows.map((row) => row.id),
      );
      return rows;
    });
    return requeued.length + failed;
  }

  /** Worker step: messages queued for an hour without a device claiming them fail as expired. */
  expireUnclaimed(): Promise<number> {
    return this.failAndEmit((tx) =>
      this.repo.failUnclaimed(tx, {
        now: this.clock.now().toISOString(),
        batch: EXPIRY_BATCH,
        error: { code: 'expired', message: 'No device claimed the message within 1 hour.' },
      }),
    );
  }

  /** Runs in the cell-release transaction: nothing of a released cell stays open. */
  async failOpenMessagesOfCell(tx: Executor, cellId: string): Promise<void> {
    const fail = (statuses: readonly MessageStatus[]) =>
      this.repo.failOpen(tx, cellId, statuses, this.clock.now().toISOString(), {
        code: 'cell_released',
        message: 'The cell was released before the message was sent.',
      });
    // The scheduled ones first: their places among the organization's scheduled messages are given back.
    const scheduled = await fail(['scheduled']);
    await this.storedCaps.releaseAll(
      tx,
      'scheduled_messages',
      countBy(scheduled, (message) => message.organization_id),
    );
    const failed = [...scheduled, ...(await fail(OPEN_STATUSES.filter((status) => status !== 'scheduled')))];
    for (const message of failed) await this.emit(tx, message, 'message.failed');
  }

  private failAndEmit(fail: (tx: Executor) => Promise<MessagesTable[]>): Promise<number> {
    return transact(this.repo.db, async (tx) => {
      const failed = await fail(tx);
      for (const message of failed) await this.emit(tx, message, 'message.failed');
      return failed.length;
    });
  }

  /** Emits the message's event; a message that failed before it was sent is refunded with it. */
  private async emit(tx: Executor, message: MessagesTable, type: EventType) {
    if (type === 'message.failed' && message.sent_at === null) await this.ports.charges.value.refund(tx, [message.id]);
    return emitMessageEvent(this.events, tx, message, type);
  }
}

/** The claim's rule, where tests of the phone's pacing look for it. */
export { withinPacing } from './pace.ts';

/** The cells a phone sends for (one per SIM line), or null when it carries none. */
function cellsOf(assignment: DeviceAssignment | null): string[] | null {
  return assignment ? assignment.lines.map((line) => line.cellId) : null;
}
