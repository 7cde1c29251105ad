// The outbound state machine as the device drives it (contract §4), and opt-out keywords.
// (scheduled →) queued → sending → sent → delivered, or failed; canceled while scheduled or queued. Final states
// never change: a late or repeated report leaves the message as it is.
import type { EventType } from '../events/types.ts';
import type { MessagesTable } from './tables.ts';

/** Every message status, in lifecycle order; the schema enums and the column type come from it. */
export const MESSAGE_STATUSES = [
  'scheduled',
  'queued',
  'sending',
  'sent',
  'delivered',
  'failed',
  'canceled',
  'received',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Outbound and not yet handed to the network: counted as open, failed when the cell is released. */
export const OPEN_STATUSES = ['scheduled', 'queued', 'sending'] as const satisfies readonly MessageStatus[];
/** Only a message no device has claimed yet can be canceled. */
export const CANCELABLE_STATUSES = ['scheduled', 'queued'] as const satisfies readonly MessageStatus[];
/** States that never change again: a late or repeated device report leaves them as they are. */
export const FINAL_STATUSES = [
  'delivered',
  'failed',
  'canceled',
  'received',
] as const satisfies readonly MessageStatus[];

/** The events a device reports about an outbound message (contract §4). */
export const DEVICE_REPORTS = ['sending', 'sent', 'delivered', 'failed'] as const satisfies readonly MessageStatus[];

export type DeviceReport =
  | { event: 'sending' | 'sent'; occurredAt: string }
  /** sentAt: when the phone says it sent a message whose delivery it reports without a sent report before. */
  | { event: 'delivered'; occurredAt: string; sentAt?: string }
  | { event: 'failed'; occurredAt: string; errorCode?: string; errorMessage?: string };

export interface Transition {
  patch: Partial<MessagesTable>;
  emit: EventType | null;
}

/** The change a device report makes to the message, or null when it changes nothing. */
export function transitionFor(
  message: Pick<MessagesTable, 'status' | 'sent_at'>,
  report: DeviceReport,
  now: string,
): Transition | null {
  const from = message.status;
  if (from !== 'sending' && from !== 'sent') return null;
  const settled = { updated_at: now, lease_expires_at: null };
  switch (report.event) {
    case 'sending':
      return null; // already sending, or further along: never backwards
    case 'sent':
      return from === 'sending'
        ? { patch: { ...settled, status: 'sent', sent_at: report.occurredAt }, emit: 'message.sent' }
        : null;
    case 'delivered':
      // Phones may report delivery without (or before) the sent report.
      return {
        patch: {
          ...settled,
          status: 'delivered',
          sent_at: message.sent_at ?? report.sentAt ?? report.occurredAt,
          delivered_at: report.occurredAt,
        },
        emit: 'message.delivered',
      };
    case 'failed':
      return {
        patch: {
          ...settled,
          status: 'failed',
          failed_at: now,
          error_code: report.errorCode ?? 'device_error',
          error_message: report.errorMessage ?? 'The device reported that the message could not be sent.',
        },
        emit: 'message.failed',
      };
  }
}

const STOP_WORDS = new Set(['STOP', 'UNSUBSCRIBE', 'END', 'QUIT', 'STOPALL', 'REVOKE', 'OPTOUT', 'CANCEL']);
const START_WORDS = new Set(['START', 'UNSTOP', 'YES']);

/** Whether an inbound body (the whole message, trimmed, any case) opts the sender out or back in. */
export function optOutKeyword(body: string): 'stop' | 'start' | null {
  const word = body.trim().toUpperCase();
  if (STOP_WORDS.has(word)) return 'stop';
  if (START_WORDS.has(word)) return 'start';
  return null;
}
