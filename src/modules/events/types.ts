// Every event type of contract §6. Modules add their payloads here, in one place.

/** The envelope delivered on the stream and to webhooks. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

/**
 * What each event is, for the OpenAPI `webhooks` section: when it is produced, and the named
 * component schema (`$id`) of its `data`, or null while its payload is not described.
 */
export const EVENT_DOCS = {
  'message.sent': { summary: 'The phone reported an outbound message sent.', data: 'Message' },
  'message.delivered': { summary: 'The carrier confirmed delivery of an outbound message.', data: 'Message' },
  'message.failed': { summary: 'Sending a message failed; data.error says why.', data: 'Message' },
  'message.received': {
    summary: 'An inbound message arrived on one of your cells (none for an ignored participant).',
    data: 'Message',
  },
  'cell.created': { summary: 'A cell was created.', data: 'Cell' },
  'cell.updated': {
    summary: 'A cell changed: renamed, a waiting cell got its phone, or it joined or left a pod.',
    data: 'Cell',
  },
  'cell.deleted': { summary: 'A cell was released (data is the cell as released).', data: 'Cell' },
  'cell.online': { summary: "A cell's phone came back.", data: 'Cell' },
  'cell.offline': { summary: "A cell's phone went silent for 120 s.", data: 'Cell' },
  'cycle.completed': {
    summary:
      'A cycle job of a pod completed: every ring hop was received, or every broadcast message ended with at most half failed.',
    data: 'CycleJob',
  },
  'cycle.failed': {
    summary:
      'A cycle job of a pod failed: a ring hop failed or was not received in time, or over half of a broadcast failed.',
    data: 'CycleJob',
  },
  'billing.payment_succeeded': { summary: 'A payment was credited.', data: null },
  'billing.payment_failed': {
    summary:
      'A renewal could not be taken from the prepaid balance at a period end; data is {organization_id, intent, amount_usd, reason, prepaid_balance_usd, period_end}.',
    data: null,
  },
  'billing.status_changed': {
    summary:
      'The billing state of the organization changed; data is {organization_id, state, previous_state, tier, current_period_end}.',
    data: null,
  },
  'webhook.disabled': {
    summary: 'A webhook endpoint was disabled after a 410 or 5 days of failures (data.disabled_reason).',
    data: 'Webhook',
  },
} satisfies Record<string, { summary: string; data: string | null }>;

export type EventType = keyof typeof EVENT_DOCS;
export const EVENT_TYPES = Object.keys(EVENT_DOCS) as EventType[];
