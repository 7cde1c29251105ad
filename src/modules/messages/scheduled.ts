// Scheduled sends (contract §12): a worker step queues the messages whose send_at has come, and
// charges them then (billing charges when a message is queued, not before). A message whose
// organization cannot pay then, or whose recipient texted STOP meanwhile, fails instead (with
// message.failed). Due rows are taken with SKIP LOCKED on PostgreSQL, so processes share the work.
import type { Clock } from '../../lib/clock.ts';
import { Port } from '../../lib/ports.ts';
import { transact } from '../../db/transaction.ts';
import { countBy, type StoredCaps } from '../../operations/stored-caps.ts';
import type { EventsService } from '../events/service.ts';
import { emitMessageEvent } from './message-events.ts';
import type { ChargesPort } from './ports.ts';
import type { MessagesRepository } from './repository.ts';
import { QUEUE_TTL_MS } from './service.ts';
import type { MessagesTable } from './tables.ts';
import type { CellWakeups } from './wakeups.ts';

export const SCHEDULED_SENDS_INTERVAL_MS = 1000;
const BATCH = 500;

interface Deps {
  repo: MessagesRepository;
  events: EventsService;
  clock: Clock;
  wakeups: CellWakeups;
  storedCaps: StoredCaps;
}

export class ScheduledSends {
  private readonly deps: Deps;
  /** Wired by the composition root: billing charges each message as it is queued. */
  readonly ports = { charges: new Port<ChargesPort>('scheduled sends', 'charges') };

  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** Worker step: queues (or fails) the scheduled messages that are due; how many it settled. */
  async tick(): Promise<number> {
    let total = 0;
    for (;;) {
      const settled = await this.releaseBatch();
      total += settled;
      if (settled < BATCH) return total;
    }
  }

  private async releaseBatch(): Promise<number> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const { count, cells } = await transact(this.deps.repo.db, async (tx) => {
      const due = await this.deps.repo.dueScheduled(tx, at, BATCH);
      if (due.length === 0) return { count: 0, cells: [] as string[] };
      const failures = new Map<string, { code: string; message: string }>();
      const charges = await this.ports.charges.value.sends(
        tx,
        due.map((message) => message.organization_id),
      );
      const stops = await this.deps.repo.optedOutAmong(
        tx,
        due.map((message) => ({ cellId: message.cell_id, participant: message.to_number })),
      );
      const stopped = new Set(stops.map((row) => `${row.cell_id}\n${row.participant}`));
      for (const message of due) {
        const refusal = charges.refusal(message.organization_id);
        if (refusal) failures.set(message.id, { code: refusal.code, message: refusal.message });
        else if (stopped.has(`${message.cell_id}\n${message.to_number}`))
          failures.set(message.id, {
            code: 'recipient_opted_out',
            message: `${message.to_number} texted STOP to this cell before the scheduled time.`,
          });
      }
      const billable = due.filter((message) => !failures.has(message.id));
      const bills = billable.length > 0 ? await charges.charge(billable) : [];
      billable.forEach((message, k) => {
        const refusal = bills[k];
        if (refusal) failures.set(message.id, { code: refusal.code, message: refusal.message });
      });
      const queued = await this.deps.repo.queueScheduled(
        tx,
        billable.filter((message) => !failures.has(message.id)).map((message) => message.id),
        at,
        new Date(now.getTime() + QUEUE_TTL_MS).toISOString(),
      );
      for (const message of due) {
        const failure = failures.get(message.id);
        if (!failure) continue;
        const failed: MessagesTable = await this.deps.repo.update(tx, message.id, {
          status: 'failed',
          error_code: failure.code,
          error_message: failure.message,
          failed_at: at,
          updated_at: at,
        });
        await emitMessageEvent(this.deps.events, tx, failed, 'message.failed');
      }
      // Queued or failed, each leaves the organization's scheduled messages (stored-caps).
      const left = new Set([...queued.map((row) => row.id), ...failures.keys()]);
      await this.deps.storedCaps.releaseAll(
        tx,
        'scheduled_messages',
        countBy(
          due.filter((message) => left.has(message.id)),
          (message) => message.organization_id,
        ),
      );
      return { count: due.length, cells: queued.map((row) => row.cell_id) };
    });
    for (const cellId of new Set(cells)) this.deps.wakeups.notify(cellId);
    return count;
  }
}
