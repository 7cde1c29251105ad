// Every event type of contract §6. Modules add their payloads here, in one place.
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.received',
  'cell.created',
  'cell.updated',
  'cell.deleted',
  'cell.online',
  'cell.offline',
  'cycle.completed',
  'cycle.failed',
  'billing.payment_succeeded',
  'billing.payment_failed',
  'billing.status_changed',
  'webhook.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The envelope delivered on the stream and to webhooks. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}
