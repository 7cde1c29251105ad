// Sending drafts. A draft is marked sent by a hook in the transaction that queues its message
// (messages module); sends given one hook share one statement per batch, so the hook finds each
// draft by its message's cell and recipient. A pod draft goes out from the cell the sticky
// rotation rule picks (sender.ts): pod draft sends that arrive together are looked up together
// (their drafts, their pods' active cells, the recipients' conversations and opt-outs, the
// rotation positions: five statements per batch instead of six per send), so a pod draft send
// costs about what a plain send does. One batch at a time, until its messages are queued; sends
// arriving meanwhile wait for the next one (as in GroupCommit).
import { MAX_BATCH } from '../../db/group-commit.ts';
import type { IdempotencyRecorder } from '../../operations/idempotency.ts';
import { ApiError } from '../../lib/errors.ts';
import { countBy, type StoredCaps } from '../../operations/stored-caps.ts';
import type { ScheduleInput } from '../messages/schedule.ts';
import type { SendHook } from '../messages/service.ts';
import type { MessageView } from '../messages/views.ts';
import type { DraftsRepository, PodDraftRef } from './drafts-repository.ts';
import type { MessagesPort } from './ports.ts';
import { optedOut, stickyCells } from './sender.ts';
import type { ActiveCell, PodsService } from './service.ts';
import type { DraftsTable } from './tables.ts';

/** A draft that can be sent: the cell it goes out from and the hook that marks it sent. */
export interface DraftSend {
  draft: DraftsTable;
  cellId: string;
  markSent: SendHook;
}

/** Undefined when the draft is not in this live pod of the organization. */
type Outcome = DraftSend | ApiError | undefined;

interface Waiting {
  ref: PodDraftRef;
  record?: IdempotencyRecorder;
  schedule?: ScheduleInput;
  resolve(message: MessageView | undefined): void;
  reject(error: unknown): void;
}

/** Queues the draft's message from its cell; the hook marks the draft sent in the same transaction. */
export function queueDraft(
  messages: MessagesPort,
  { draft, cellId, markSent }: DraftSend,
  record: IdempotencyRecorder | undefined,
  schedule?: ScheduleInput,
): Promise<MessageView> {
  const input = { to: draft.to_number, body: draft.body, media_urls: JSON.parse(draft.media_urls) as string[] };
  return messages.send(draft.organization_id, cellId, input, { record, within: markSent, schedule });
}

export const notDraft = (row: Pick<DraftsTable, 'status'>, action: string) =>
  new ApiError('conflict', `Only a draft can be ${action}; this one is ${row.status}.`);

const sentKey = (cellId: string, to: string) => `${cellId}\n${to}`;

type Picked = Omit<DraftSend, 'markSent'>;

/**
 * The sends of these drafts from these cells. They share a hook, which finds each draft by its
 * message's cell and recipient: a second draft to a recipient from the same cell gets another.
 * A draft sent leaves the organization's drafts (stored-caps).
 */
export function draftSends(repo: DraftsRepository, storedCaps: StoredCaps, picked: readonly Picked[]): DraftSend[] {
  const hooks: { drafts: Map<string, string>; markSent: SendHook }[] = [];
  return picked.map(({ draft, cellId }) => {
    const key = sentKey(cellId, draft.to_number);
    let hook = hooks.find((candidate) => !candidate.drafts.has(key));
    if (!hook) {
      const drafts = new Map<string, string>();
      const markSent: SendHook = async (tx, messages) => {
        const sent = await repo.markSent(
          tx,
          messages.map((message) => ({
            id: drafts.get(sentKey(message.cell_id, message.to)) as string,
            messageId: message.id,
            at: message.created_at,
          })),
        );
        if (sent.length < messages.length)
          throw new ApiError('conflict', 'Only a draft can be sent; this one was sent or discarded meanwhile.');
        const byOrganization = countBy(sent, (draft) => draft.organization_id);
        await storedCaps.releaseAll(tx, 'drafts', byOrganization);
      };
      hooks.push((hook = { drafts, markSent }));
    }
    hook.drafts.set(key, draft.id);
    return { draft, cellId, markSent: hook.markSent };
  });
}

export class PodDraftSends {
  private readonly repo: DraftsRepository;
  private readonly pods: PodsService;
  private readonly messages: MessagesPort;
  private readonly storedCaps: StoredCaps;
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(deps: { repo: DraftsRepository; pods: PodsService; messages: MessagesPort; storedCaps: StoredCaps }) {
    ({ repo: this.repo, storedCaps: this.storedCaps, pods: this.pods, messages: this.messages } = deps);
  }

  /** Sends the draft (queueDraft); undefined when the draft is not in this live pod of the organization. */
  send(ref: PodDraftRef, record?: IdempotencyRecorder, schedule?: ScheduleInput): Promise<MessageView | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ref, record, schedule, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: Outcome[];
      try {
        outcomes = await this.pickAll(batch.map((waiting) => waiting.ref));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
        continue;
      }
      // The next batch starts once these messages are queued: pod draft sends arriving meanwhile
      // join it, so that more sends share its statements (and those of its group commit).
      await Promise.all(
        batch.map(async (waiting, i) => {
          try {
            const outcome = outcomes[i];
            if (outcome instanceof ApiError) throw outcome;
            waiting.resolve(outcome && (await queueDraft(this.messages, outcome, waiting.record, waiting.schedule)));
          } catch (error) {
            waiting.reject(error);
          }
        }),
      );
    }
    this.scheduled = false;
  }

  private async pickAll(refs: PodDraftRef[]): Promise<Outcome[]> {
    const [rows, active, refusals] = await Promise.all([
      this.repo.podDraftsAmong(refs),
      this.pods.activeCellsOf([...new Set(refs.map((ref) => ref.podId))]),
      this.pods.sendRefusals([...new Set(refs.map((ref) => ref.organizationId))]),
    ]);
    const drafts = new Map(rows.map((row) => [row.id, row]));
    // A draft id may come with another pod or organization than its own: that send finds nothing.
    const found = refs.map((ref) => {
      const row = drafts.get(ref.draftId);
      return row && row.pod_id === ref.podId && row.organization_id === ref.organizationId ? row : undefined;
    });
    const recipients = [...new Set(found.flatMap((row) => (row?.status === 'draft' ? [row.to_number] : [])))];
    const cellIds = [...active.values()].flat().map((cell) => cell.id);
    const state = await this.messages.recipientsAmong(cellIds, recipients);
    // Per pod: its recipients who texted STOP, and those stuck to one of its active cells.
    const rules = new Map(
      [...active].map(([podId, cells]) => {
        const ids = new Set(cells.map((cell) => cell.id));
        const podState = {
          conversations: state.conversations.filter((row) => ids.has(row.cell_id)),
          optOuts: state.optOuts.filter((row) => ids.has(row.cell_id)),
        };
        return [podId, { cells, stops: optedOut(podState), sticky: stickyCells(podState, cells) }];
      }),
    );
    // A cell id, or null: the send goes to the next cell of its pod's rotation.
    const picks = found.map((row): string | null | ApiError | undefined => {
      if (!row) return undefined;
      // Billing first, as for every send: a suspended organization's cells are suspended too.
      const refusal = refusals.get(row.organization_id);
      if (refusal) return refusal;
      if (row.status !== 'draft') return notDraft(row, 'sent');
      const rule = rules.get(row.pod_id as string);
      if (!rule) return new ApiError('cell_not_active', 'The pod has no active cell to send from.');
      const to = row.to_number;
      if (rule.stops.has(to)) {
        return new ApiError(
          'recipient_opted_out',
          `${to} texted STOP to a cell of this pod; they must text START before the pod can message them again.`,
        );
      }
      return rule.sticky.get(to) ?? null;
    });
    // Sends without a sticky cell take consecutive positions of their pod's rotation, in order.
    const rotating = new Map<string, number[]>();
    picks.forEach((pick, i) => {
      const podId = found[i]?.pod_id as string;
      if (pick === null) rotating.set(podId, [...(rotating.get(podId) ?? []), i]);
    });
    await Promise.all(
      [...rotating].map(async ([podId, indexes]) => {
        const first = await this.pods.takeRotations(podId, indexes.length);
        const { cells } = rules.get(podId) as { cells: ActiveCell[] };
        indexes.forEach((i, k) => (picks[i] = cells[(first + k) % cells.length].id));
      }),
    );
    const sendable = picks.flatMap((pick, i) =>
      typeof pick === 'string' ? [{ i, draft: found[i] as DraftsTable, cellId: pick }] : [],
    );
    const sends = new Map(draftSends(this.repo, this.storedCaps, sendable).map((send, k) => [sendable[k].i, send]));
    return picks.map((pick, i) => sends.get(i) ?? (pick as ApiError | undefined));
  }
}
