// Advancing one cycle job (the cycle worker holds its lease meanwhile):
// 1. plan: queue pending items, in batches of PLAN_BATCH. A ring hop goes from its cell to the
//    next; a broadcast recipient goes to its sticky cell, else to the active cell with the
//    fewest messages of the job so far. Each item turns `queued` in the transaction that queues
//    its message (a conditional update), so whatever the processes or restarts, a recipient is
//    sent one message. A cell gets no more segments queued at once than QUEUE_WINDOW_MINUTES of
//    its phone's send rate, nor than its phone's day has room for (pace.ts, the claim's rule);
//    the rest waits for a later tick, so a long broadcast is not failed by the queue's 1-hour
//    expiry.
// 2. follow: items mirror their messages' status (a window of SYNC_BATCH per tick); a ring hop
//    is `received` once the next cell got a text from the sending cell's number after the hop was
//    queued, and fails when that takes longer than RING_HOP_TIMEOUT_MS.
// 3. finish: when nothing is open any more, the job is completed or failed, with its event.
import type { FastifyBaseLogger } from 'fastify';
import { transact } from '../../db/transaction.ts';
import { ApiError } from '../../lib/errors.ts';
import { StoredCapReached } from '../../operations/stored-caps.ts';
import type { Clock } from '../../lib/clock.ts';
import { DEFAULT_DAILY_SEND_LIMIT, DEFAULT_SEND_RATE_PER_MINUTE } from '../devices/service.ts';
import { countSegments } from '../../lib/segments.ts';
import type { EventsService } from '../events/service.ts';
import type { CycleRepository } from './cycle-repository.ts';
import type { SendHook } from '../messages/service.ts';
import type { DevicesPort, MessagesPort } from './ports.ts';
import { leastLoaded, optedOut, stickyCells } from './sender.ts';
import type { ActiveCell, PodsService } from './service.ts';
import type { CycleJobItemsTable, CycleJobsTable, ItemStatus } from './tables.ts';
import { jobCounts, jobView } from './views.ts';

/** A ring hop the next cell has not received this long after it was queued fails. */
export const RING_HOP_TIMEOUT_MS = 10 * 60_000;
/** A broadcast message `sent` this long without a delivery report counts as done for its job. */
export const DELIVERY_REPORT_WAIT_MS = 10 * 60_000;
/** At most this many minutes of a cell's send rate (in segments) wait in its queue at once. */
export const QUEUE_WINDOW_MINUTES = 30;
/** The pace of a cell whose phone claims nothing now (paused, quarantined): the defaults. */
const DEFAULT_LIMITS = { sendRatePerMinute: DEFAULT_SEND_RATE_PER_MINUTE, dailySendLimit: DEFAULT_DAILY_SEND_LIMIT };
const PLAN_BATCH = 500;
const SYNC_BATCH = 2000;
/** Real time one advance may spend queuing before it lets other jobs have a turn. */
const PLAN_BUDGET_MS = 5_000;

export interface AdvanceOptions {
  /** Stop queuing after this many batches (tests stop a broadcast half way). */
  maxBatches?: number;
}

/** The item was queued by someone else (another process, an earlier run): nothing to do. */
class AlreadyQueued extends Error {}

/** Message statuses an item takes, and the item statuses each may move from (never backwards). */
const MOVES: Partial<Record<string, { to: ItemStatus; from: ItemStatus[] }>> = {
  sending: { to: 'sending', from: ['queued'] },
  sent: { to: 'sent', from: ['queued', 'sending'] },
  delivered: { to: 'delivered', from: ['queued', 'sending', 'sent'] },
  failed: { to: 'failed', from: ['queued', 'sending', 'sent'] },
  canceled: { to: 'canceled', from: ['queued', 'sending'] },
};
const IN_FLIGHT: Record<CycleJobsTable['mode'], ItemStatus[]> = {
  ring: ['queued', 'sending', 'sent', 'delivered'],
  broadcast: ['queued', 'sending', 'sent'],
};
/** Refusals of a send that end an item instead of failing the tick. */
const REFUSALS = new Set(['cell_not_active', 'not_found', 'recipient_opted_out']);

export class CyclePlanner {
  private readonly deps: {
    repo: CycleRepository;
    pods: PodsService;
    messages: MessagesPort;
    devices: DevicesPort;
    events: EventsService;
    clock: Clock;
    log: FastifyBaseLogger;
  };

  constructor(deps: CyclePlanner['deps']) {
    this.deps = deps;
  }

  /** One step of the job; `keepLease` renews the caller's lease and says whether it still holds. */
  async advance(
    claimed: CycleJobsTable,
    keepLease: () => Promise<boolean>,
    options: AdvanceOptions = {},
  ): Promise<void> {
    let job = claimed;
    if (job.status === 'queued') {
      const at = this.deps.clock.now().toISOString();
      const started = await this.deps.repo.finishOrStart(this.deps.repo.db, job.id, ['queued'], {
        status: 'running',
        updated_at: at,
      });
      if (!started) return; // canceled meanwhile
      job = started;
    }
    if (job.mode === 'ring') await this.planRing(job);
    else if (!(await this.planBroadcast(job, keepLease, options))) return;
    await this.follow(job);
    if (job.mode === 'ring') await this.checkHops(job);
    await this.finishIfDone(job);
  }

  private async planRing(job: CycleJobsTable): Promise<void> {
    const hops = (await this.deps.repo.itemsIn(job.id, ['pending'], 0, PLAN_BATCH)).map((hop) => ({
      item: hop,
      cellId: hop.cell_id as string,
    }));
    await this.settle(job, hops, await this.queue(job, hops), 'failed');
  }

  /** Queues pending recipients in batches while cells have room; false when the lease was lost. */
  private async planBroadcast(
    job: CycleJobsTable,
    keepLease: () => Promise<boolean>,
    options: AdvanceOptions,
  ): Promise<boolean> {
    let active = await this.deps.pods.activeCells(job.pod_id);
    const at = this.deps.clock.now().toISOString();
    if (active.length === 0) {
      await this.deps.repo.moveAll(this.deps.repo.db, job.id, ['pending'], 'failed', at);
      return true;
    }
    const load = await this.deps.repo.loadPerCell(job.id);
    const room = await this.roomOf(active);
    // Every message of the job has its body: the same segments each.
    const cost = countSegments(job.body).segments;
    const deadline = performance.now() + PLAN_BUDGET_MS;
    let after = 0;
    for (let batch = 1; ; batch++) {
      if (!active.some((cell) => (room.get(cell.id) ?? 0) >= cost)) return true;
      const items = await this.deps.repo.itemsIn(job.id, ['pending'], after, PLAN_BATCH);
      if (items.length === 0) return true;
      after = items[items.length - 1].seq;
      const state = await this.deps.messages.recipientsAmong(
        active.map((cell) => cell.id),
        items.map((item) => item.recipient),
      );
      const stops = optedOut(state);
      const sticky = stickyCells(state, active);
      await this.deps.repo.moveItems(
        this.deps.repo.db,
        job.id,
        items.filter((item) => stops.has(item.recipient)).map((item) => item.seq),
        ['pending'],
        'skipped',
        at,
        'recipient_opted_out',
      );
      const plans: { item: CycleJobItemsTable; cellId: string }[] = [];
      for (const item of items) {
        if (stops.has(item.recipient)) continue;
        const stuck = sticky.get(item.recipient);
        const cellId = stuck ?? leastLoaded(active, load, (id) => (room.get(id) ?? 0) >= cost);
        if (cellId === null) break; // no room anywhere
        if ((room.get(cellId) ?? 0) < cost) continue; // its sticky cell is full: next tick
        if (stuck) load.set(stuck, (load.get(stuck) ?? 0) + 1);
        room.set(cellId, (room.get(cellId) ?? 0) - cost);
        plans.push({ item, cellId });
      }
      const { lostCells, held } = await this.settle(job, plans, await this.queue(job, plans), 'skipped');
      // A cell that stopped being able to send (suspended, released) gets nothing more.
      if (lostCells.size > 0) active = active.filter((cell) => !lostCells.has(cell.id));
      for (const id of lostCells) room.set(id, 0);
      if (active.length === 0 || held) return true;
      if ((options.maxBatches !== undefined && batch >= options.maxBatches) || performance.now() > deadline)
        return true;
      if (!(await keepLease())) return false;
    }
  }

  /**
   * Queues each item's message from its cell; the sends' transactions mark their items queued
   * (one statement per batch of sends: they share the hook). Settles with each send's outcome.
   */
  private queue(job: CycleJobsTable, plans: readonly { item: CycleJobItemsTable; cellId: string }[]) {
    // Recipients are distinct within a job: a message's `to` names its item.
    const seqOf = new Map(plans.map(({ item }) => [item.recipient, item.seq]));
    const markQueued: SendHook = async (tx, messages) => {
      const rows = messages.map((message) => ({
        seq: seqOf.get(message.to) as number,
        cellId: message.cell_id,
        sender: message.from,
        messageId: message.id,
        at: message.created_at,
      }));
      if ((await this.deps.repo.markQueued(tx, job.id, rows)) !== rows.length) throw new AlreadyQueued();
    };
    // A broadcast started with send_at schedules its messages for it, while it is still ahead;
    // one started with send_now goes out inside quiet hours too.
    const schedule = {
      ...(job.send_at !== null && Date.parse(job.send_at) > this.deps.clock.now().getTime()
        ? { send_at: job.send_at }
        : {}),
      ...(job.send_now === 1 ? { send_now: true } : {}),
    };
    return Promise.allSettled(
      plans.map(({ item, cellId }) =>
        this.deps.messages.send(
          job.organization_id,
          cellId,
          { to: item.recipient, body: job.body },
          { within: markQueued, schedule },
        ),
      ),
    );
  }

  /**
   * After a batch of sends: a refused send ends its item (`optOut` for a recipient who texted STOP,
   * failed for a cell that cannot send); the cells that could not send, and whether billing held
   * sends back (402: those items wait, pending, for a later tick). Other errors fail the tick (the
   * items stay pending for the next one).
   */
  private async settle(
    job: CycleJobsTable,
    plans: { item: CycleJobItemsTable; cellId: string }[],
    results: PromiseSettledResult<unknown>[],
    optOut: ItemStatus,
  ) {
    const at = this.deps.clock.now().toISOString();
    const lostCells = new Set<string>();
    let held = false;
    let unexpected: unknown;
    for (const [i, result] of results.entries()) {
      if (result.status === 'fulfilled' || result.reason instanceof AlreadyQueued) continue;
      const error = result.reason as unknown;
      const { item, cellId } = plans[i];
      if (error instanceof StoredCapReached || (error instanceof ApiError && error.code === 'payment_required')) {
        held = true;
        continue;
      }
      if (!(error instanceof ApiError) || !REFUSALS.has(error.code)) {
        unexpected ??= error;
        continue;
      }
      // A broadcast's cell that cannot send loses its items to the other cells; a ring's hop fails.
      const end = error.code === 'recipient_opted_out' ? optOut : job.mode === 'ring' ? 'failed' : null;
      if (end) await this.deps.repo.moveItems(this.deps.repo.db, job.id, [item.seq], ['pending'], end, at, error.code);
      else lostCells.add(cellId);
    }
    if (unexpected !== undefined) throw unexpected;
    return { lostCells, held };
  }

  /**
   * How many more segments each cell may have queued now (pace.ts queueRoom): QUEUE_WINDOW_MINUTES
   * of its phone's rate, no more than the phone's day has room for, less the cell's queue. One
   * bounded read per cell (the send's pace statement), never a sum of the whole queue.
   */
  private async roomOf(active: readonly ActiveCell[]): Promise<Map<string, number>> {
    const room = new Map<string, number>();
    for (const cell of active) {
      const assignment = cell.device_id ? await this.deps.devices.assignment(cell.device_id) : null;
      const phone = assignment ?? { ...DEFAULT_LIMITS, deviceId: null };
      room.set(cell.id, await this.deps.messages.queueRoom(cell.id, phone, QUEUE_WINDOW_MINUTES));
    }
    return room;
  }

  /** Items in flight take their messages' status, a window of them per tick. */
  private async follow(job: CycleJobsTable): Promise<void> {
    const items = await this.deps.repo.itemsIn(job.id, IN_FLIGHT[job.mode], job.sync_after, SYNC_BATCH);
    const next = items.length < SYNC_BATCH ? 0 : items[items.length - 1].seq;
    if (next !== job.sync_after) await this.deps.repo.setSyncAfter(job.id, next);
    const bySeq = new Map(items.map((item) => [item.message_id, item.seq]));
    const statuses = await this.deps.messages.statusesOf(
      items.flatMap((item) => (item.message_id ? [item.message_id] : [])),
    );
    const moves = new Map<string, number[]>();
    for (const { id, status } of statuses) {
      const seq = bySeq.get(id);
      if (seq !== undefined && MOVES[status]) moves.set(status, [...(moves.get(status) ?? []), seq]);
    }
    const at = this.deps.clock.now().toISOString();
    for (const [status, seqs] of moves) {
      const move = MOVES[status];
      if (move)
        await this.deps.repo.moveItems(
          this.deps.repo.db,
          job.id,
          seqs,
          move.from,
          move.to,
          at,
          move.to === 'failed' ? 'message_failed' : null,
        );
    }
  }

  /** Ring: a hop is received once the next cell got a text from the sender; past the timeout it fails. */
  private async checkHops(job: CycleJobsTable): Promise<void> {
    const open = IN_FLIGHT.ring;
    const hops = await this.deps.repo.itemsIn(job.id, open, 0, PLAN_BATCH);
    const now = this.deps.clock.now();
    const received: number[] = [];
    const late: CycleJobItemsTable[] = [];
    for (const hop of hops) {
      if (!hop.queued_at || !hop.to_cell_id || !hop.sender) continue;
      if (await this.deps.messages.receivedSince(hop.to_cell_id, hop.sender, hop.queued_at)) received.push(hop.seq);
      else if (now.getTime() - new Date(hop.queued_at).getTime() >= RING_HOP_TIMEOUT_MS) late.push(hop);
    }
    const at = now.toISOString();
    await this.deps.repo.moveItems(this.deps.repo.db, job.id, received, open, 'received', at);
    if (late.length === 0) return;
    await transact(this.deps.repo.db, async (tx) => {
      // A hop still waiting in its cell's queue is not sent late.
      await this.deps.messages.cancelQueuedAmong(
        tx,
        late.flatMap((hop) => (hop.message_id ? [hop.message_id] : [])),
      );
      await this.deps.repo.moveItems(
        tx,
        job.id,
        late.map((hop) => hop.seq),
        open,
        'failed',
        at,
        'not_received',
      );
    });
  }

  /** When no item is open, the job ends: failed when a ring hop or over half of a broadcast failed. */
  private async finishIfDone(job: CycleJobsTable): Promise<void> {
    const now = this.deps.clock.now();
    const sentSince = job.mode === 'ring' ? null : new Date(now.getTime() - DELIVERY_REPORT_WAIT_MS).toISOString();
    if ((await this.deps.repo.countOpen(job.id, ['pending', ...IN_FLIGHT[job.mode]], sentSince)) > 0) return;
    const at = now.toISOString();
    await transact(this.deps.repo.db, async (tx) => {
      const counts = jobCounts(await this.deps.repo.countsByStatus(tx, [job.id]));
      const canceled =
        counts.total -
        counts.queued -
        counts.sent -
        counts.delivered -
        counts.received -
        counts.failed -
        counts.skipped;
      const failed =
        job.mode === 'ring' ? counts.failed > 0 : counts.failed * 2 > counts.total - counts.skipped - canceled;
      const status = failed ? 'failed' : 'completed';
      const done = await this.deps.repo.finish(tx, job.id, status, at);
      if (!done) return;
      await this.deps.events.emit(tx, {
        organizationId: job.organization_id,
        type: failed ? 'cycle.failed' : 'cycle.completed',
        data: jobView(done, counts),
      });
      this.deps.log.info({ job: job.id, status, counts }, 'cycle job finished');
    });
  }
}
