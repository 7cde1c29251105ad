// Event retention (contract §6): events older than 7 days are deleted. Runs in every process;
// the deletes are idempotent, so concurrent ticks only share the work.
import type { EventsService } from '../modules/events/service.ts';

export const EVENTS_PRUNE_INTERVAL_MS = 10 * 60 * 1000;

export interface EventsPruneWorker {
  /** Deletes what the clock says has expired; how many events. */
  tick(): Promise<number>;
}

export function eventsPruneWorker(deps: { events: EventsService }): EventsPruneWorker {
  return { tick: () => deps.events.prune() };
}
