// wait_for_reply and wait_for_delivery: subscribe to the process's event feed (the reader behind
// the event stream, woken by each commit here and by NOTIFY from other processes), then look once
// in the database, then wait for the first matching event, the timeout or the client's hang-up.
// Subscribing before the look means nothing committed in between is missed; nothing polls.
import { decodeTime } from 'ulid';
import type { Clock } from '../../lib/clock.ts';
import { invalidField } from '../../lib/errors.ts';
import { isBound, timeBound } from '../codes/service.ts';
import type { EventsService } from '../events/service.ts';
import { FINAL_STATUSES } from '../messages/lifecycle.ts';

export type EventData = Record<string, unknown>;

export interface WaitSpec<T> {
  organizationId: string;
  types: readonly string[];
  /** The value an event's data stands for, or undefined when it does not match. */
  match(data: EventData): T | undefined;
  /** The one look in the database, after subscribing. */
  lookup(): Promise<T | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
}

export async function waitForEvent<T>(events: EventsService, spec: WaitSpec<T>): Promise<T | undefined> {
  let hit!: (value: T) => void;
  const hitPromise = new Promise<T>((resolve) => (hit = resolve));
  const types = new Set(spec.types);
  const subscriber = {
    organizationId: spec.organizationId,
    deliver(event: { type: string; frame: Buffer }) {
      if (!types.has(event.type)) return;
      const value = spec.match((JSON.parse(event.frame.toString('utf8')) as { event: { data: EventData } }).event.data);
      if (value !== undefined) hit(value);
    },
  };
  await events.feed.start();
  events.feed.subscribe(subscriber);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const found = await spec.lookup();
    if (found !== undefined) return found;
    if (spec.signal?.aborted) return undefined;
    const ended = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), spec.timeoutMs);
      onAbort = () => resolve(undefined);
      spec.signal?.addEventListener('abort', onAbort, { once: true });
    });
    return await Promise.race([hitPromise, ended]);
  } finally {
    clearTimeout(timer);
    if (onAbort) spec.signal?.removeEventListener('abort', onAbort);
    events.feed.unsubscribe(subscriber);
  }
}

/**
 * The exclusive lower bound on message ids a `since` stands for. Ids start with their creation
 * time (src/lib/ids.ts), so a message id is its own cursor and a timestamp is the smallest id of
 * its millisecond: every message created at or after it sorts above.
 */
export function sinceBound(since: string | undefined, clock: Clock): string {
  if (since === undefined) return timeBound(clock.now().getTime());
  // A message id, or the time bound a timed-out wait answered as next_since: whatever a wait
  // returns is taken back (the loop `since = next_since` never breaks).
  if (isBound(since)) return since;
  const ms = Date.parse(since);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(since)) {
    throw invalidField(
      'since',
      'invalid_format',
      'since is a message id (msg_...), the next_since of a wait, or an ISO 8601 timestamp.',
    );
  }
  return timeBound(ms);
}

/** The ISO time of a bound, for the listing's `since` filter (the millisecond the bound is in). */
export const boundTime = (bound: string): string =>
  new Date(decodeTime(`${bound.slice(4, 14).toUpperCase()}${'0'.repeat(16)}`)).toISOString();

/**
 * Where wait_for_delivery stops: at a final status, or — for a phone that does not report
 * delivery (its cell's capabilities say delivery_reports: false) — already at `sent`, which is
 * as far as such a message ever goes; waiting longer would only run into the timeout.
 */
export function deliveryWaitEnd(deliveryReports: boolean) {
  const statuses: readonly string[] = deliveryReports ? FINAL_STATUSES : [...FINAL_STATUSES, 'sent'];
  return {
    types: deliveryReports
      ? ['message.delivered', 'message.failed']
      : ['message.sent', 'message.delivered', 'message.failed'],
    isEnd: (message: { status?: unknown }) => statuses.includes(String(message.status)),
    /** The note for a message that ended at `sent` for this reason. */
    note: (message: { status?: unknown }) =>
      !deliveryReports && message.status === 'sent'
        ? 'Delivery reports are not available for this phone: sent is as far as this message goes.'
        : undefined,
  };
}
