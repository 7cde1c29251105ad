// The public shapes of pods, drafts, contact lists, ignored participants and cycle jobs
// (contract §5), their response schemas and the functions that make them from rows.
import { Type, type Static } from 'typebox';
import { pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { parseQuietHours } from '../../lib/quiet-hours.ts';
import { QuietHoursSchema } from '../cells/schemas.ts';
import type {
  ContactListsTable,
  CycleJobsTable,
  DraftsTable,
  IgnoredParticipantsTable,
  ItemStatus,
  PodsTable,
} from './tables.ts';

const AT = '2026-11-21T12:00:00.000Z';
export const POD_EXAMPLE = {
  id: 'pod_01jdx3c4d5e6f7g8h9j0k1m2n3',
  name: 'Outreach',
  client_id: 'create-outreach-pod',
  cell_ids: ['cell_01jdx2b7c8d9e0f1g2h3j4k5m6', 'cell_01jdx2b7c8d9e0f1g2h3j4k5m7'],
  quiet_hours: null,
  created_at: AT,
  updated_at: AT,
};
export const DRAFT_EXAMPLE = {
  id: 'drf_01jdx3d5e6f7g8h9j0k1m2n3p4',
  client_id: 'draft-42',
  cell_id: null,
  pod_id: POD_EXAMPLE.id,
  to: '+14155550199',
  body: 'Your table for two is ready.',
  media_urls: [],
  status: 'draft',
  message_id: null,
  created_at: AT,
  updated_at: AT,
};
export const LIST_EXAMPLE = {
  id: 'lst_01jdx3e6f7g8h9j0k1m2n3p4q5',
  name: 'Regulars',
  number_count: 2,
  created_at: AT,
  updated_at: AT,
};
const JOB_EXAMPLE = {
  id: 'job_01jdx3f7g8h9j0k1m2n3p4q5r6',
  pod_id: POD_EXAMPLE.id,
  mode: 'ring',
  status: 'running',
  counts: { total: 3, queued: 0, sent: 1, delivered: 1, received: 1, failed: 0, skipped: 0 },
  send_at: null,
  created_at: AT,
  completed_at: null,
};

export const Pod = Type.Object(
  {
    id: Type.String({ description: 'pod_... id' }),
    name: Type.String(),
    client_id: Type.String({ description: 'The client_id it was created with.' }),
    cell_ids: Type.Array(Type.String(), { description: 'Its cells, oldest first. A cell is in at most one pod.' }),
    quiet_hours: { ...QuietHoursSchema, description: 'Quiet hours of its cells that have none of their own.' },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Pod',
    description: 'A sender pool: cells of the organization that send together (pod drafts, cycle jobs).',
    examples: [POD_EXAMPLE],
  },
);

export const PodList = pageOf('pods', Pod, 'PodList', 'A page of pods.', POD_EXAMPLE);

export const Draft = Type.Object(
  {
    id: Type.String({ description: 'drf_... id' }),
    client_id: Type.String(),
    cell_id: Nullable(Type.String({ description: 'The cell of a cell draft; null for a pod draft.' })),
    pod_id: Nullable(Type.String({ description: 'The pod of a pod draft; null for a cell draft.' })),
    to: Type.String({ description: 'E.164' }),
    body: Type.String(),
    media_urls: Type.Array(Type.String()),
    status: Type.Enum(['draft', 'sent', 'discarded']),
    message_id: Nullable(Type.String({ description: 'The message it became, once sent.' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Draft',
    description:
      'A message written but not sent yet. A pod draft is sent from the pod cell chosen by the sticky rotation rule.',
    examples: [DRAFT_EXAMPLE],
  },
);

export const DraftList = pageOf('drafts', Draft, 'DraftList', 'A page of drafts.', DRAFT_EXAMPLE);

const ListFields = {
  id: Type.String({ description: 'lst_... id' }),
  name: Type.String(),
  number_count: Type.Integer({ description: 'How many numbers the list holds (at most 10,000).' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const ContactListSummary = Type.Object(ListFields, {
  $id: 'ContactListSummary',
  description: 'A contact list without its numbers.',
  examples: [LIST_EXAMPLE],
});

export const ContactList = Type.Object(
  { ...ListFields, numbers: Type.Array(Type.String(), { description: 'E.164, in number order.' }) },
  {
    $id: 'ContactList',
    description: 'A named list of up to 10,000 phone numbers, a broadcast target.',
    examples: [{ ...LIST_EXAMPLE, numbers: ['+14155550198', '+14155550199'] }],
  },
);

const pageText = 'A page of contact lists (without their numbers).';
export const ContactListPage = pageOf('lists', ContactListSummary, 'ContactListPage', pageText, LIST_EXAMPLE);

const IGNORED_EXAMPLE = { participant: '+14155550111', created_at: AT };
export const IgnoredParticipant = Type.Object(
  { participant: Type.String({ description: 'E.164' }), created_at: Timestamp },
  {
    $id: 'IgnoredParticipant',
    description:
      'A number whose inbound texts are stored with ignored: true, without events, webhooks or a place in default listings.',
    examples: [IGNORED_EXAMPLE],
  },
);

const ignoredText = 'A page of ignored participants, newest first.';
export const IgnoredList = pageOf('ignored', IgnoredParticipant, 'IgnoredList', ignoredText, IGNORED_EXAMPLE);

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;

export const CycleJob = Type.Object(
  {
    id: Type.String({ description: 'job_... id' }),
    pod_id: Type.String(),
    mode: Type.Enum(['ring', 'broadcast']),
    status: Type.Enum([...JOB_STATUSES]),
    counts: Type.Object(
      {
        total: Type.Integer({ description: 'Messages the job plans: ring hops, or distinct recipients.' }),
        queued: Type.Integer({
          description: 'Not handed to the network yet (waiting their turn, queued or being sent).',
        }),
        sent: Type.Integer({ description: 'Sent, no delivery report yet.' }),
        delivered: Type.Integer({ description: 'Delivered (a ring hop: not yet seen by the next cell).' }),
        received: Type.Integer({ description: 'Ring hops the next cell received.' }),
        failed: Type.Integer(),
        skipped: Type.Integer({ description: 'Recipients who texted STOP to a cell of the pod.' }),
      },
      { description: 'Each message counts once, in its current state; canceled ones only in total.' },
    ),
    send_at: Nullable({
      ...Timestamp,
      description: 'A broadcast started with send_at: its messages are scheduled for then (queued and charged then).',
    }),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
  },
  {
    $id: 'CycleJob',
    description: "A ring (each active cell texts the next) or a broadcast over the pod's active cells.",
    examples: [JOB_EXAMPLE],
  },
);

export const CycleJobList = pageOf(
  'jobs',
  CycleJob,
  'CycleJobList',
  'A page of cycle jobs, newest first.',
  JOB_EXAMPLE,
);

export type PodView = ReturnType<typeof podView>;

/** The pod with its cells (oldest first). */
export function podView(row: PodsTable, cells: readonly { id: string }[]) {
  return {
    id: row.id,
    name: row.name,
    client_id: row.client_id,
    cell_ids: cells.map((cell) => cell.id),
    quiet_hours: parseQuietHours(row.quiet_hours),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type DraftView = ReturnType<typeof draftView>;

export function draftView(row: DraftsTable) {
  return {
    id: row.id,
    client_id: row.client_id,
    cell_id: row.cell_id,
    pod_id: row.pod_id,
    to: row.to_number,
    body: row.body,
    media_urls: JSON.parse(row.media_urls) as string[],
    status: row.status,
    message_id: row.message_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function listSummaryView({ id, name, number_count, created_at, updated_at }: ContactListsTable) {
  return { id, name, number_count, created_at, updated_at };
}

export function listView(row: ContactListsTable, numbers: string[]) {
  return { ...listSummaryView(row), numbers };
}

export function ignoredView(row: Pick<IgnoredParticipantsTable, 'participant' | 'created_at'>) {
  return { participant: row.participant, created_at: row.created_at };
}

export type JobCounts = Static<typeof CycleJob>['counts'];

/** Item states per count: each item in one count (canceled ones in none but total). */
const COUNT_OF: Record<ItemStatus, keyof JobCounts | null> = {
  pending: 'queued',
  queued: 'queued',
  sending: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  received: 'received',
  failed: 'failed',
  skipped: 'skipped',
  canceled: null,
};

export function jobCounts(byStatus: readonly { status: ItemStatus; n: number }[]): JobCounts {
  const counts: JobCounts = { total: 0, queued: 0, sent: 0, delivered: 0, received: 0, failed: 0, skipped: 0 };
  for (const { status, n } of byStatus) {
    counts.total += n;
    const key = COUNT_OF[status];
    if (key) counts[key] += n;
  }
  return counts;
}

export type JobView = ReturnType<typeof jobView>;

export function jobView(
  { id, pod_id, mode, status, send_at, created_at, completed_at }: CycleJobsTable,
  counts: JobCounts,
) {
  return { id, pod_id, mode, status, counts, send_at, created_at, completed_at };
}
