// The outbox: every module records its events here, inside the transaction of the change.
// Consumers (the stream, the webhook dispatcher) read committed rows in `seq` order.
import { EventEmitter } from 'node:events';
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { EventsRepository } from './repository.ts';
import type { EventEnvelope, EventType } from './types.ts';

export class EventsService {
  private readonly repo: EventsRepository;
  private readonly clock: Clock;
  /** Emits 'appended' shortly after an emit, so in-process consumers look for new rows. */
  readonly signals = new EventEmitter();

  constructor(deps: { repo: EventsRepository; clock: Clock }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.signals.setMaxListeners(0);
  }

  private readonly emitHooks: ((ex: Executor, envelope: EventEnvelope) => Promise<void>)[] = [];

  /** Runs `hook` inside every emitting transaction, after the event row (webhook fan-out). */
  onEmit(hook: (ex: Executor, envelope: EventEnvelope) => Promise<void>): void {
    this.emitHooks.push(hook);
  }

  /** Records an event in the caller's transaction; returns its envelope. */
  async emit(ex: Executor, event: { organizationId: string; type: EventType; data: Record<string, unknown> }): Promise<EventEnvelope> {
    const now = this.clock.now();
    const envelope: EventEnvelope = {
      id: newId('evt', now.getTime()),
      type: event.type,
      created_at: now.toISOString(),
      organization_id: event.organizationId,
      data: event.data,
    };
    await this.repo.insert(ex, {
      id: envelope.id,
      organization_id: envelope.organization_id,
      type: envelope.type,
      data: JSON.stringify(envelope.data),
      created_at: envelope.created_at,
    });
    for (const hook of this.emitHooks) await hook(ex, envelope);
    // Consumers re-read from their last seq; a wake before the commit finds nothing and the
    // next wake (or the periodic poll) picks the row up.
    setImmediate(() => this.signals.emit('appended'));
    return envelope;
  }
}
