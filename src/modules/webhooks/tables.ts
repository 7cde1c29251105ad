import type { Generated } from 'kysely';

export interface WebhooksTable {
  id: string;
  /** Null: an operator endpoint (/v1/admin/webhooks, contract §11). */
  organization_id: string | null;
  client_id: string;
  request_hash: string;
  url: string;
  /** JSON array of event types and wildcards (`message.*`, `*`). */
  event_types: string;
  enabled: number;
  description: string | null;
  /** whsec_...; kept usable because every delivery is signed with it. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  organization_id: string | null;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  lease_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  attempted_by: string;
  /** JSON object of the request's headers; null when nothing was sent (the URL guard refused). */
  request_headers: string | null;
  /** The first 4 KiB of the receiver's answer (UTF-8); null when none came. */
  response_body: string | null;
}

export interface WebhooksTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
