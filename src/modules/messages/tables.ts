import type { MessageStatus } from './lifecycle.ts';

export type { MessageStatus };

export interface MessagesTable {
  id: string;
  organization_id: string;
  cell_id: string;
  conversation_id: string;
  direction: 'outbound' | 'inbound';
  from_number: string;
  to_number: string;
  body: string;
  media_urls: string;
  status: MessageStatus;
  segments: number;
  error_code: string | null;
  error_message: string | null;
  reply_to_message_id: string | null;
  ignored: number;
  device_id: string | null;
  lease_expires_at: string | null;
  attempts: number;
  claimed_at: string | null;
  expires_at: string | null;
  device_message_id: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  delivered_at: string | null;
  received_at: string | null;
  failed_at: string | null;
  /** The one-time code found in an inbound text (contract §12), and the service it names. */
  code: string | null;
  code_service: string | null;
  /** A scheduled message goes out (is queued and charged) at send_at (contract §12). */
  send_at: string | null;
  schedule_reason: 'send_at' | 'quiet_hours' | null;
}

export interface ConversationsTable {
  id: string;
  organization_id: string;
  cell_id: string;
  participant: string;
  last_message_id: string | null;
  last_message_at: string;
  created_at: string;
  updated_at: string;
}

export interface OptOutsTable {
  cell_id: string;
  participant: string;
  created_at: string;
}

export interface DeviceEventsTable {
  device_id: string;
  event_id: string;
  message_id: string;
  event: string;
  created_at: string;
}

export interface MessagesTables {
  messages: MessagesTable;
  conversations: ConversationsTable;
  opt_outs: OptOutsTable;
  device_events: DeviceEventsTable;
}
