// Tables of the pods module (migration 0007): pods, drafts, contact lists, ignored participants
// and cycle jobs with their items. Pod membership itself is cells.pod_id (cells module).
export interface PodsTable {
  id: string;
  organization_id: string;
  client_id: string;
  request_hash: string;
  name: string;
  rotation: number;
  /** JSON {start, end, time_zone} or null (contract §12): for its cells without their own. */
  quiet_hours: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type DraftStatus = 'draft' | 'sent' | 'discarded';

export interface DraftsTable {
  id: string;
  organization_id: string;
  client_id: string;
  request_hash: string;
  cell_id: string | null;
  pod_id: string | null;
  to_number: string;
  body: string;
  /** JSON array of URLs. */
  media_urls: string;
  status: DraftStatus;
  message_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactListsTable {
  id: string;
  organization_id: string;
  cell_id: string | null;
  pod_id: string | null;
  name: string;
  number_count: number;
  created_at: string;
  updated_at: string;
}

export interface ContactListNumbersTable {
  list_id: string;
  number: string;
  created_at: string;
}

export interface IgnoredParticipantsTable {
  scope_id: string;
  organization_id: string;
  participant: string;
  created_at: string;
}

export type JobMode = 'ring' | 'broadcast';
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

export interface CycleJobsTable {
  id: string;
  organization_id: string;
  pod_id: string;
  client_id: string | null;
  request_hash: string;
  mode: JobMode;
  status: JobStatus;
  body: string;
  lease_token: string | null;
  lease_until: string | null;
  sync_after: number;
  /** A broadcast's send_at (contract §12): its messages are scheduled for it. */
  send_at: string | null;
  /** 1: started with send_now, its messages go out inside quiet hours too. */
  send_now: number;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/**
 * pending: not queued yet; queued/sending/sent/delivered mirror the message; received: a ring
 * hop the next cell got; failed, canceled, skipped (opted out) are final like received.
 */
export type ItemStatus =
  'pending' | 'queued' | 'sending' | 'sent' | 'delivered' | 'received' | 'failed' | 'canceled' | 'skipped';

export interface CycleJobItemsTable {
  job_id: string;
  seq: number;
  recipient: string;
  cell_id: string | null;
  sender: string | null;
  to_cell_id: string | null;
  status: ItemStatus;
  message_id: string | null;
  error_code: string | null;
  queued_at: string | null;
  updated_at: string;
}

export interface PodsTables {
  pods: PodsTable;
  drafts: DraftsTable;
  contact_lists: ContactListsTable;
  contact_list_numbers: ContactListNumbersTable;
  ignored_participants: IgnoredParticipantsTable;
  cycle_jobs: CycleJobsTable;
  cycle_job_items: CycleJobItemsTable;
}
