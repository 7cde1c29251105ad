// Drafts (contract §5) under a cell or a pod: created with client_id, edited while `draft`,
// discarded, or sent once. Sending queues the message and marks the draft `sent` in the same
// transaction, so two sends of one draft (other keys, other processes) queue one message.
// A pod draft goes out from the cell the sticky rotation rule picks (sender.ts).
import type { Static, TObject } from 'typebox';
import type { ScheduleInput } from '../messages/schedule.ts';
import type { IdempotencyRecorder } from '../../operations/idempotency.ts';
import { clientIdHash } from '../../lib/client-id.ts';
import { transact } from '../../db/transaction.ts';
import type { Executor } from '../../db/schema.ts';
import { createOnce } from '../../db/create-once.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound, orNotFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { MessageView } from '../messages/views.ts';
import { draftSends, notDraft, PodDraftSends, queueDraft } from './draft-sends.ts';
import type { DraftsRepository } from './drafts-repository.ts';
import type { DraftFields } from './scoped-operations.ts';
import { scopeColumns, type Scope } from './scope.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { DraftsTable, DraftStatus } from './tables.ts';
import { draftView, type DraftView } from './views.ts';

type CreateDraftInput = Static<TObject<typeof DraftFields>>;
type UpdateDraftInput = Partial<Omit<CreateDraftInput, 'client_id'>>;

export class DraftsService {
  private readonly repo: DraftsRepository;
  private readonly clock: Clock;
  private readonly deps: ConstructorParameters<typeof PodDraftSends>[0];
  private readonly podSends: PodDraftSends;

  constructor(deps: DraftsService['deps'] & { clock: Clock }) {
    ({ repo: this.repo, clock: this.clock } = deps);
    this.deps = deps;
    this.podSends = new PodDraftSends(deps);
  }

  /** 201 on the first create; 200 with the draft (as it is now) when the same body repeats the client_id. */
  async create(scope: Scope, input: CreateDraftInput): Promise<{ created: boolean; draft: DraftView }> {
    const to = requirePhone('to', input.to);
    const mediaUrls = input.media_urls ?? [];
    const hash = clientIdHash({
      scope: `${scope.kind}:${scope.id}`,
      client_id: input.client_id,
      to,
      body: input.body,
      media_urls: mediaUrls,
    });
    const { created, value } = await createOnce({
      resource: 'draft',
      hash,
      earlier: () => this.repo.findByClientId(scope.organizationId, input.client_id),
      create: () => this.insert(scope, input, to, mediaUrls, hash),
      view: draftView,
    });
    return { created, draft: value };
  }

  private async insert(scope: Scope, input: CreateDraftInput, to: string, mediaUrls: string[], hash: string) {
    const now = this.clock.now();
    const at = now.toISOString();
    const row: DraftsTable = {
      id: newId('drf', this.clock, now),
      organization_id: scope.organizationId,
      client_id: input.client_id,
      request_hash: hash,
      ...scopeColumns(scope),
      to_number: to,
      body: input.body,
      media_urls: JSON.stringify(mediaUrls),
      status: 'draft',
      message_id: null,
      created_at: at,
      updated_at: at,
    };
    await transact(this.repo.db, async (tx) => {
      await this.deps.storedCaps.take(tx, 'drafts', scope.organizationId);
      await this.repo.insert(tx, row);
    });
    return draftView(row);
  }

  async list(scope: Scope, query: PageQuery & { status?: DraftStatus }) {
    const { items, next_cursor } = await pageById(query, (before, count) =>
      this.repo.list(scope, query.status, before, count),
    );
    return { drafts: items.map(draftView), next_cursor };
  }

  async get(scope: Scope, id: string): Promise<DraftView> {
    return draftView(await this.inScope(scope, id));
  }

  /** Edits a draft; 409 conflict once it is sent or discarded. */
  async update(scope: Scope, id: string, input: UpdateDraftInput): Promise<DraftView> {
    const row = await this.inScope(scope, id);
    const changes = {
      updated_at: this.clock.now().toISOString(),
      ...(input.to !== undefined ? { to_number: requirePhone('to', input.to) } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.media_urls !== undefined ? { media_urls: JSON.stringify(input.media_urls) } : {}),
    };
    const updated = await this.repo.changeDraft(this.repo.db, row.id, changes);
    if (!updated) throw notDraft(await this.inScope(scope, id), 'edited');
    return draftView(updated);
  }

  /** Discards a draft (again: the same answer); 409 conflict when it was sent. */
  async discard(scope: Scope, id: string): Promise<DraftView> {
    const row = await this.inScope(scope, id);
    const changes = { status: 'discarded' as const, updated_at: this.clock.now().toISOString() };
    const discarded = await transact(this.repo.db, async (tx) => {
      const changed = await this.repo.changeDraft(tx, row.id, changes);
      if (changed) await this.keepDiscarded(tx, row.organization_id, 1);
      return changed;
    });
    if (discarded) return draftView(discarded);
    const now = await this.inScope(scope, id);
    if (now.status === 'discarded') return draftView(now);
    throw notDraft(now, 'discarded');
  }

  /** In the transaction that deletes the scope (a pod, a released cell): its drafts are discarded. */
  async discardAllIn(tx: Executor, scope: Scope): Promise<void> {
    const discarded = await this.repo.discardAllIn(tx, scope, this.clock.now().toISOString());
    await this.keepDiscarded(tx, scope.organizationId, discarded);
  }

  /**
   * `n` drafts just became discarded: they leave the drafts' cap, and are kept readable while the
   * organization has fewer than the discarded cap; past it, as many of its oldest discarded drafts
   * are deleted (create-and-discard cannot grow the database without bound).
   */
  private async keepDiscarded(tx: Executor, organizationId: string, n: number): Promise<void> {
    await this.deps.storedCaps.release(tx, 'drafts', organizationId, n);
    if (!(await this.deps.storedCaps.tryTake(tx, 'discarded_drafts', organizationId, n)))
      await this.repo.deleteOldestDiscarded(tx, organizationId, n);
  }

  /** Queues the message of a draft of a cell (`scope`) and marks the draft sent, in one transaction. */
  async sendFromCell(scope: Scope, id: string, record?: IdempotencyRecorder, schedule?: ScheduleInput) {
    const row = await this.inScope(scope, id);
    if (row.status !== 'draft') throw notDraft(row, 'sent');
    const [send] = draftSends(this.repo, this.deps.storedCaps, [{ draft: row, cellId: scope.id }]);
    return queueDraft(this.deps.messages, send, record, schedule);
  }

  /**
   * As sendFromCell for a draft of a pod, from the cell the sticky rotation rule picks. The pod
   * is not resolved first: the draft's lookup checks it, and only a miss looks at the pod alone
   * (404 for the pod, else for the draft).
   */
  async sendFromPod(
    organizationId: string,
    podId: string,
    id: string,
    record?: IdempotencyRecorder,
    schedule?: ScheduleInput,
  ): Promise<MessageView> {
    const message = await this.podSends.send({ organizationId, podId, draftId: id }, record, schedule);
    if (message) return message;
    await this.deps.pods.owned(organizationId, podId);
    throw notFound('draft');
  }

  private async inScope(scope: Scope, id: string): Promise<DraftsTable> {
    return orNotFound(await this.repo.findInScope(scope, id), 'draft');
  }
}
