// Drafts (contract §5) under a cell or a pod: created with client_id, edited while `draft`,
// discarded, or sent once. Sending queues the message and marks the draft `sent` in the same
// transaction, so two sends of one draft (other keys, other processes) queue one message.
// A pod draft goes out from the cell the sticky rotation rule picks (sender.ts).
import type { IdempotencyRecorder } from '../../http/idempotency.ts';
import { clientIdHash, sameClientIdBody } from '../../lib/client-id.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { SendHook } from '../messages/service.ts';
import type { MessageView } from '../messages/views.ts';
import type { DraftsRepository } from './drafts-repository.ts';
import type { MessagesPort } from './ports.ts';
import { scopeColumns, type Scope } from './scope.ts';
import { optedOut, stickyCells } from './sender.ts';
import type { PodsService } from './service.ts';
import type { DraftsTable, DraftStatus } from './tables.ts';
import { draftView, type DraftView } from './views.ts';

export interface CreateDraftInput {
  client_id: string;
  to: string;
  body: string;
  media_urls?: string[];
}

export interface UpdateDraftInput {
  to?: string;
  body?: string;
  media_urls?: string[];
}

const notDraft = (row: Pick<DraftsTable, 'status'>, action: string) =>
  new ApiError('conflict', `Only a draft can be ${action}; this one is ${row.status}.`);

export class DraftsService {
  private readonly repo: DraftsRepository;
  private readonly pods: PodsService;
  private readonly messages: MessagesPort;
  private readonly clock: Clock;

  constructor(deps: { repo: DraftsRepository; pods: PodsService; messages: MessagesPort; clock: Clock }) {
    this.repo = deps.repo;
    this.pods = deps.pods;
    this.messages = deps.messages;
    this.clock = deps.clock;
  }

  /** 201 on the first create; 200 with the draft (as it is now) when the same body repeats the client_id. */
  async create(scope: Scope, input: CreateDraftInput): Promise<{ created: boolean; draft: DraftView }> {
    const to = requirePhone('to', input.to);
    const mediaUrls = input.media_urls ?? [];
    const hash = clientIdHash({ scope: `${scope.kind}:${scope.id}`, client_id: input.client_id, to, body: input.body, media_urls: mediaUrls });
    const existing = await this.repo.findByClientId(scope.organizationId, input.client_id);
    if (existing) return { created: false, draft: draftView(sameClientIdBody(existing, hash)) };
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
    try {
      await this.repo.insert(this.repo.db, row);
    } catch (error) {
      // A concurrent create with the same client_id won the unique index.
      const raced = await this.repo.findByClientId(scope.organizationId, input.client_id);
      if (raced) return { created: false, draft: draftView(sameClientIdBody(raced, hash)) };
      throw error;
    }
    return { created: true, draft: draftView(row) };
  }

  async list(scope: Scope, query: PageQuery & { status?: DraftStatus }) {
    const { items, next_cursor } = await listPage(query, (before, count) => this.repo.list(scope, query.status, before ? String(before[0]) : null, count), (row) => [row.id]);
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
    const discarded = await this.repo.changeDraft(this.repo.db, row.id, { status: 'discarded', updated_at: this.clock.now().toISOString() });
    if (discarded) return draftView(discarded);
    const now = await this.inScope(scope, id);
    if (now.status === 'discarded') return draftView(now);
    throw notDraft(now, 'discarded');
  }

  /** Queues the draft's message (202) and marks the draft sent, in one transaction. */
  async send(scope: Scope, id: string, record?: IdempotencyRecorder): Promise<MessageView> {
    const row = await this.inScope(scope, id);
    if (row.status !== 'draft') throw notDraft(row, 'sent');
    const cellId = scope.kind === 'cell' ? scope.id : await this.podCellFor(scope.id, row.to_number);
    const input = { to: row.to_number, body: row.body, media_urls: JSON.parse(row.media_urls) as string[] };
    const markSent: SendHook = async (tx, [message]) => {
      const sent = await this.repo.changeDraft(tx, row.id, { status: 'sent', message_id: message.id, updated_at: message.created_at });
      if (!sent) throw new ApiError('conflict', 'Only a draft can be sent; this one was sent or discarded meanwhile.');
    };
    return this.messages.send(scope.organizationId, cellId, input, { record, within: markSent });
  }

  /** The pod cell a pod draft to `to` goes out from: sticky, else the next in rotation. */
  private async podCellFor(podId: string, to: string): Promise<string> {
    const active = await this.pods.activeCells(podId);
    if (active.length === 0) throw new ApiError('cell_not_active', 'The pod has no active cell to send from.');
    const state = await this.messages.recipientsAmong(active.map((cell) => cell.id), [to]);
    if (optedOut(state).has(to)) {
      throw new ApiError('recipient_opted_out', `${to} texted STOP to a cell of this pod; they must text START before the pod can message them again.`);
    }
    const sticky = stickyCells(state, active).get(to);
    if (sticky) return sticky;
    return active[(await this.pods.nextRotation(podId)) % active.length].id;
  }

  private async inScope(scope: Scope, id: string): Promise<DraftsTable> {
    const row = await this.repo.findInScope(scope, id);
    if (!row) throw notFound('draft');
    return row;
  }
}
