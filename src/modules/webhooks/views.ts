// The public shapes of webhooks and deliveries, and which events a webhook's filter takes.
import type { Selectable } from 'kysely';
import { DEVICE_EVENT_TYPES } from '../devices/events.ts';
import { EVENT_TYPES } from '../events/types.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from './tables.ts';

/** What event_types accepts: every event type, `<group>.*` per group, and `*`. */
export const EVENT_TYPE_FILTERS: string[] = [
  '*',
  ...new Set(EVENT_TYPES.map((t) => `${t.split('.')[0]}.*`)),
  ...EVENT_TYPES,
];

/** What an operator endpoint's event_types takes: `*`, `device.*` and the five device events. */
export const OPERATOR_EVENT_TYPE_FILTERS: string[] = ['*', 'device.*', ...DEVICE_EVENT_TYPES];

export function matchesEventType(filters: readonly string[], type: string): boolean {
  return filters.some((f) => f === '*' || f === type || (f.endsWith('.*') && type.startsWith(f.slice(0, -1))));
}

export function webhookView(row: WebhooksTable) {
  return {
    id: row.id,
    client_id: row.client_id,
    url: row.url,
    event_types: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    description: row.description,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function deliveryView(row: WebhookDeliveriesTable, attempts: Selectable<WebhookAttemptsTable>[]) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' || row.status === 'retrying' ? row.next_attempt_at : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_latency_ms: row.last_latency_ms,
    attempt_history: attempts.map((a) => ({
      attempted_at: a.attempted_at,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
