// Cycle jobs of a pod (contract §5): start (ring or broadcast), list, read, cancel. Starting writes
// the job and one item per message it plans (a ring hop, or a distinct recipient) in one
// transaction and answers 202 at once; the cycle worker (cycle-planner.ts) queues the messages
// in batches and follows them to the end. Idempotency-Key (written in the same transaction) and
// client_id (unique per organization, forever) make a retry return the same job.
import type { Static } from 'typebox';
import { requireSendAt } from '../messages/schedule.ts';
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import { recordOutcomes, type IdempotencyRecorder } from '../../operations/idempotency.ts';
import { clientIdHash } from '../../lib/client-id.ts';
import { createOnce } from '../../db/create-once.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, orNotFound, type FieldError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { CycleRepository } from './cycle-repository.ts';
import type { ListsService } from './lists-service.ts';
import { normalizeNumbers } from './numbers.ts';
import type { StartCycleInput as StartCycleBody } from './operations.ts';
import type { MessagesPort } from './ports.ts';
import type { ActiveCell, PodsService } from './service.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { CycleJobItemsTable, CycleJobsTable, PodsTable } from './tables.ts';
import { jobCounts, jobView, type JobView } from './views.ts';

export type StartCycleInput = Omit<Static<typeof StartCycleBody>, 'pod_id'>;

const invalid = (errors: FieldError[]) =>
  new ApiError('invalid_request', errors.length === 1 ? errors[0].message : `${errors.length} fields are invalid.`, {
    errors,
  });

/** The text of a ring hop when the request gives none. */
export const defaultRingBody = (jobId: string) => `Cellgate ring check ${jobId}: this line can send and receive.`;

export class CycleService {
  private readonly repo: CycleRepository;
  private readonly pods: PodsService;
  private readonly clock: Clock;
  private readonly deps: { lists: ListsService; messages: MessagesPort; storedCaps: StoredCaps };

  constructor(deps: CycleService['deps'] & { repo: CycleRepository; pods: PodsService; clock: Clock }) {
    ({ repo: this.repo, pods: this.pods, clock: this.clock } = deps);
    this.deps = deps;
  }

  /** The job (202). `replayed` when its client_id names an earlier job started with the same body. */
  async start(organizationId: string, podId: string, input: StartCycleInput, record?: IdempotencyRecorder) {
    const to = checkInput(input);
    const hash = clientIdHash({
      pod_id: podId,
      mode: input.mode,
      body: input.body,
      to,
      list_id: input.list_id,
      client_id: input.client_id,
      ...(input.send_at === undefined ? {} : { send_at: input.send_at }),
      ...(input.send_now === undefined ? {} : { send_now: input.send_now }),
    });
    const clientId = input.client_id;
    const { created, value } = await createOnce({
      resource: 'cycle job',
      hash,
      earlier: async () =>
        clientId === undefined ? undefined : await this.repo.findJobByClientId(organizationId, clientId),
      create: () => this.insert(organizationId, podId, input, to, hash, record),
      view: (row) => this.viewOf(row),
    });
    return { replayed: !created, job: value };
  }

  private async insert(
    organizationId: string,
    podId: string,
    input: StartCycleInput,
    to: string[] | undefined,
    hash: string,
    record: IdempotencyRecorder | undefined,
  ): Promise<JobView> {
    const pod = await this.pods.owned(organizationId, podId);
    // Billing first, as for every send: a suspended organization's cells are suspended too.
    const refusal = (await this.pods.sendRefusals([organizationId])).get(organizationId);
    if (refusal) throw refusal;
    const active = await this.pods.activeCells(pod.id);
    const listId = input.list_id === undefined ? null : await this.ownedList(organizationId, input.list_id);
    if (input.mode === 'ring' && active.length < 2)
      throw new ApiError('conflict', `A ring needs at least 2 active cells in the pod; it has ${active.length}.`);
    if (input.mode === 'broadcast' && active.length === 0)
      throw new ApiError('conflict', 'The pod has no active cell to send from.');
    const now = this.clock.now();
    const at = now.toISOString();
    const sendAt = input.send_at === undefined ? null : requireSendAt(input.send_at, now).toISOString();
    const id = newId('job', this.clock, now);
    const row: CycleJobsTable = {
      id,
      organization_id: organizationId,
      pod_id: pod.id,
      client_id: input.client_id ?? null,
      request_hash: hash,
      mode: input.mode,
      status: 'queued',
      body: input.body ?? defaultRingBody(id),
      lease_token: null,
      lease_until: null,
      sync_after: 0,
      send_at: sendAt,
      send_now: input.send_now === true ? 1 : 0,
      created_at: at,
      updated_at: at,
      completed_at: null,
    };
    return transact(this.repo.db, async (tx) => {
      await this.repo.insertJob(tx, row);
      if (input.mode === 'ring') await this.repo.insertItems(tx, ringItems(id, active, at));
      else if (listId !== null) await this.repo.insertItemsFromList(tx, id, listId, at);
      else await this.repo.insertRecipients(tx, id, to ?? [], at);
      // Every item is pending: a ring has a hop per cell (it takes no `to`), a broadcast an item per
      // number; only a list's size needs asking.
      const total = listId !== null ? await this.repo.countItems(tx, id) : (to ?? active).length;
      // A scheduled broadcast's recipients become scheduled messages: with those of the organization's
      // other scheduled broadcasts not planned yet, they must fit beside its scheduled messages.
      if (sendAt !== null) {
        const scheduled = await this.repo.pendingScheduled(tx, organizationId, at);
        await this.deps.storedCaps.fits(tx, 'scheduled_messages', organizationId, scheduled);
      }
      const view = jobView(row, jobCounts([{ status: 'pending', n: total }]));
      if (record) await recordOutcomes(tx, [record(view)]);
      return view;
    });
  }

  async list(organizationId: string, podId: string, query: PageQuery) {
    const pod = await this.pods.owned(organizationId, podId);
    const { items, next_cursor } = await pageById(query, (before, count) => this.repo.listJobs(pod.id, before, count));
    const ids = items.map((job) => job.id);
    const counts = await this.repo.countsByStatus(this.repo.db, ids);
    return {
      jobs: items.map((job) => jobView(job, jobCounts(counts.filter((row) => row.job_id === job.id)))),
      next_cursor,
    };
  }

  async get(organizationId: string, podId: string, jobId: string): Promise<JobView> {
    const pod = await this.pods.owned(organizationId, podId);
    return this.viewOf(await this.owned(this.repo.db, organizationId, pod.id, jobId));
  }

  /** Cancels an open job: what it has not queued yet never is, and its queued messages are canceled. 409 once it ended. */
  async cancel(organizationId: string, podId: string, jobId: string): Promise<JobView> {
    const pod = await this.pods.owned(organizationId, podId);
    const canceled = await transact(this.repo.db, async (tx) => {
      const job = await this.owned(tx, organizationId, pod.id, jobId);
      const done = await this.cancelJob(tx, job);
      if (!done)
        throw new ApiError('conflict', `Only a queued or running job can be canceled; this one is ${job.status}.`);
      return done;
    });
    return this.viewOf(canceled);
  }

  /** In the transaction deleting a pod: its open jobs stop. */
  async cancelOpenOfPod(tx: Executor, pod: PodsTable): Promise<void> {
    for (const job of await this.repo.openJobsOfPod(tx, pod.id)) await this.cancelJob(tx, job);
  }

  private async cancelJob(tx: Executor, job: CycleJobsTable): Promise<CycleJobsTable | undefined> {
    const at = this.clock.now().toISOString();
    const canceled = await this.repo.finish(tx, job.id, 'canceled', at);
    if (!canceled) return undefined;
    await this.repo.moveAll(tx, job.id, ['pending'], 'canceled', at);
    // Messages a device has not claimed yet are canceled; those in flight finish as they will.
    const queued = await this.repo.messageIdsIn(tx, job.id, ['queued', 'sending']);
    const stopped = await this.deps.messages.cancelQueuedAmong(tx, queued);
    await this.repo.moveByMessage(tx, job.id, stopped, ['queued', 'sending'], 'canceled', at);
    return canceled;
  }

  private async owned(ex: Executor, organizationId: string, podId: string, jobId: string): Promise<CycleJobsTable> {
    return orNotFound(await this.repo.findJob(ex, organizationId, podId, jobId), 'job');
  }

  private async viewOf(job: CycleJobsTable): Promise<JobView> {
    return jobView(job, jobCounts(await this.repo.countsByStatus(this.repo.db, [job.id])));
  }

  /** The list of a broadcast: any list of the organization (under a cell or a pod) with numbers. */
  private async ownedList(organizationId: string, listId: string): Promise<string> {
    const list = await this.deps.lists.findOwned(organizationId, listId);
    if (!list)
      throw invalid([{ field: 'list_id', code: 'not_found', message: `No list ${listId} in this organization.` }]);
    if (list.number_count === 0)
      throw invalid([{ field: 'list_id', code: 'too_few', message: 'The list holds no numbers.' }]);
    return list.id;
  }
}

/** The mode's rules on the fields (400 naming each); a broadcast's `to` normalised and deduplicated. */
function checkInput(input: StartCycleInput): string[] | undefined {
  const errors: FieldError[] = [];
  if (input.mode === 'ring') {
    const refuse = (field: 'to' | 'list_id' | 'send_at', message: string) => {
      if (input[field] !== undefined) errors.push({ field, code: 'invalid_value', message });
    };
    refuse('to', 'A ring takes no recipients: each cell texts the next.');
    refuse('list_id', 'A ring takes no list: each cell texts the next.');
    refuse('send_at', 'A ring goes now; send_at is for broadcasts.');
  } else {
    if (input.body === undefined)
      errors.push({ field: 'body', code: 'required', message: 'body is required for a broadcast.' });
    if (input.to === undefined && input.list_id === undefined)
      errors.push({ field: 'to', code: 'required', message: 'A broadcast needs to (numbers) or list_id.' });
    if (input.to !== undefined && input.list_id !== undefined)
      errors.push({ field: 'list_id', code: 'invalid_value', message: 'Give either to or list_id, not both.' });
  }
  if (errors.length > 0) throw invalid(errors);
  return input.to === undefined ? undefined : normalizeNumbers('to', input.to);
}

/** Hop i: the i-th active cell texts the next one (the last texts the first). */
function ringItems(jobId: string, cells: readonly ActiveCell[], at: string): CycleJobItemsTable[] {
  return cells.map((cell, i) => {
    const next = cells[(i + 1) % cells.length];
    return {
      job_id: jobId,
      seq: i + 1,
      recipient: next.phone_number,
      cell_id: cell.id,
      sender: cell.phone_number,
      to_cell_id: next.id,
      status: 'pending',
      message_id: null,
      error_code: null,
      queued_at: null,
      updated_at: at,
    };
  });
}
