// Webhook endpoints (contract §6): create with client_id, read, update, delete, rotate the secret,
// and the deliveries log with manual retry. Every event fans out here, inside its own
// transaction, into one delivery row per matching endpoint; the delivery worker sends them.
import type { Static } from 'typebox';
import type { StoredCaps } from '../../operations/stored-caps.ts';
import { EventEmitter } from 'node:events';
import { ApiError, invalidField, orNotFound } from '../../lib/errors.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { clientIdHash } from '../../lib/client-id.ts';
import { checkUrl, type Lookup } from '../../lib/ssrf.ts';
import type { Executor } from '../../db/schema.ts';
import type { EventEnvelope } from '../events/types.ts';
import type { DeviceEventType } from '../devices/events.ts';
import type { RecordOperatorAction } from '../admin/audit.ts';
import type { AdminPrincipal } from '../../operations/principals.ts';
import type { WebhooksRepository } from './repository.ts';
import type { createWebhookBody, updateWebhookInput } from './schemas.ts';
import { newSigningSecret } from './signing.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from './tables.ts';
import { deliveryView, matchesEventType, webhookView } from './views.ts';
import { createOnce } from '../../db/create-once.ts';
import { afterCommit, transact } from '../../db/transaction.ts';

/** The type of the console's test event (not an event type of contract §6: it is never emitted). */
export const TEST_EVENT_TYPE = 'webhook.test';
/** A rotated-out secret keeps signing (beside the new one) this long. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Finished deliveries (and their attempts) stay in the log this long. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The envelope of an operator event: the organization's shape, with no organization. */
export interface OperatorEnvelope extends Omit<EventEnvelope, 'type' | 'organization_id'> {
  type: DeviceEventType;
  organization_id: null;
}

type CreateWebhookInput = Static<ReturnType<typeof createWebhookBody>>;
type UpdateWebhookInput = Omit<Static<ReturnType<typeof updateWebhookInput>>, 'id'>;

export type WebhookView = ReturnType<typeof webhookView>;

/** Whose endpoints: an organization's (its id) or the operator's (null, /v1/admin/webhooks). */
export type Owner = string | null;

/**
 * The admin token changing one of the operator's endpoints: the change is recorded in the operator
 * audit log, in its transaction. An organization's endpoints are changed without one.
 */
export type OperatorActor = AdminPrincipal | undefined;

export class WebhooksService {
  private readonly repo: WebhooksRepository;
  private readonly clock: Clock;
  private readonly deps: { allowPrivate: boolean; lookup: Lookup; audit: RecordOperatorAction; storedCaps: StoredCaps };
  /** 'queued' fires when committed deliveries became due: an event's fan-out, a manual retry, a re-enable. */
  readonly signals = new EventEmitter().setMaxListeners(0);

  constructor(deps: WebhooksService['deps'] & { repo: WebhooksRepository; clock: Clock }) {
    ({ repo: this.repo, clock: this.clock } = deps);
    this.deps = deps;
  }

  private async checkedUrl(raw: string): Promise<string> {
    const { allowPrivate, lookup } = this.deps;
    const check = await checkUrl(raw, { allowPrivate, lookup, allowUnresolved: true });
    if (!check.ok) throw invalidField('url', check.code, check.message);
    return check.url.href;
  }

  /** An operator's change of one of the operator's endpoints, in the operator audit log; nothing for an organization's. */
  private async recordOperatorChange(
    tx: Executor,
    actor: OperatorActor,
    action: string,
    webhookId: string,
    detail?: Record<string, unknown>,
  ): Promise<void> {
    if (actor)
      await this.deps.audit(tx, { actor, action, targetType: 'webhook', targetId: webhookId, reason: null, detail });
  }

  private async owned(organizationId: Owner, id: string): Promise<WebhooksTable> {
    return orNotFound(await this.repo.findWebhook(this.repo.db, organizationId, id), 'webhook');
  }

  /** 201 with the secret on first create; 200 without it when the same body repeats the client_id. */
  async create(organizationId: Owner, input: CreateWebhookInput, actor?: OperatorActor) {
    const hash = clientIdHash(input);
    const { created, value } = await createOnce({
      resource: 'webhook',
      hash,
      earlier: () => this.repo.findByClientId(organizationId, input.client_id),
      create: () => this.insert(organizationId, input, hash, actor),
      view: (row): WebhookView & { secret?: string } => webhookView(row),
    });
    return { created, webhook: value };
  }

  private async insert(organizationId: Owner, input: CreateWebhookInput, hash: string, actor: OperatorActor) {
    const url = await this.checkedUrl(input.url);
    const now = this.clock.now().toISOString();
    const row: WebhooksTable = {
      id: newId('whk', this.clock),
      organization_id: organizationId,
      client_id: input.client_id,
      request_hash: hash,
      url,
      event_types: JSON.stringify([...new Set(input.event_types ?? ['*'])]),
      enabled: input.enabled === false ? 0 : 1,
      description: input.description ?? null,
      secret: newSigningSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    const view = webhookView(row);
    const { event_types, enabled } = view;
    await transact(this.repo.db, async (tx) => {
      // An organization keeps at most its cap of endpoints (the operator's are not counted).
      if (organizationId !== null) await this.deps.storedCaps.take(tx, 'webhooks', organizationId);
      await this.repo.insertWebhook(tx, row);
      await this.recordOperatorChange(tx, actor, 'webhook.create', row.id, { url, event_types, enabled });
    });
    return { ...view, secret: row.secret };
  }

  async get(organizationId: Owner, id: string): Promise<WebhookView> {
    return webhookView(await this.owned(organizationId, id));
  }

  async list(organizationId: Owner, query: PageQuery) {
    const { items, next_cursor } = await pageById(query, (before, count) =>
      this.repo.listWebhooks(organizationId, before, count),
    );
    return { webhooks: items.map(webhookView), next_cursor };
  }

  async update(organizationId: Owner, id: string, input: UpdateWebhookInput, actor?: OperatorActor) {
    const row = await this.owned(organizationId, id);
    const now = this.clock.now().toISOString();
    const changes: Partial<WebhooksTable> = { updated_at: now };
    if (input.url !== undefined) changes.url = await this.checkedUrl(input.url);
    if (input.event_types !== undefined) changes.event_types = JSON.stringify([...new Set(input.event_types)]);
    if (input.description !== undefined) changes.description = input.description;
    if (input.enabled === false) changes.enabled = 0;
    if (input.enabled === true && row.enabled === 0) {
      // Re-enabling starts a fresh failure window.
      Object.assign(changes, { enabled: 1, disabled_reason: null, failing_since: null });
    }
    const resumed = changes.enabled === 1;
    await transact(this.repo.db, async (tx) => {
      await this.repo.updateWebhook(tx, id, changes);
      if (resumed) await this.repo.release(tx, id, now);
      await this.recordOperatorChange(tx, actor, 'webhook.update', id, { ...input });
    });
    if (resumed) this.signals.emit('queued');
    return webhookView({ ...row, ...changes });
  }

  async remove(organizationId: Owner, id: string, actor?: OperatorActor): Promise<void> {
    const row = await this.owned(organizationId, id);
    const now = this.clock.now().toISOString();
    await transact(this.repo.db, async (tx) => {
      if (!(await this.repo.deleteWebhook(tx, id, now))) return;
      if (organizationId !== null) await this.deps.storedCaps.release(tx, 'webhooks', organizationId);
      await this.repo.abandonQueued(tx, id, now);
      await this.recordOperatorChange(tx, actor, 'webhook.delete', id, { url: row.url });
    });
  }

  /** A new secret; the previous one keeps signing beside it for 24 hours. */
  async rotateSecret(organizationId: Owner, id: string, actor?: OperatorActor) {
    const row = await this.owned(organizationId, id);
    const now = this.clock.now();
    const changes = {
      secret: newSigningSecret(),
      previous_secret: row.secret,
      previous_secret_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString(),
      updated_at: now.toISOString(),
    };
    await transact(this.repo.db, async (tx) => {
      await this.repo.updateWebhook(tx, id, changes);
      await this.recordOperatorChange(tx, actor, 'webhook.rotate_secret', id);
    });
    return {
      ...webhookView({ ...row, ...changes }),
      secret: changes.secret,
      previous_secret_expires_at: changes.previous_secret_expires_at,
    };
  }

  async listDeliveries(organizationId: Owner, webhookId: string, query: PageQuery) {
    await this.owned(organizationId, webhookId);
    const { items, next_cursor } = await pageById(query, (before, count) =>
      this.repo.listDeliveries(webhookId, before, count),
    );
    const attempts = await this.repo.attemptsOf(items.map((r) => r.id));
    const attemptsOf = (id: string) => attempts.filter((a) => a.delivery_id === id);
    return { deliveries: items.map((r) => deliveryView(r, attemptsOf(r.id))), next_cursor };
  }

  /**
   * One delivery with what each attempt sent and got back (the console's delivery page): the
   * signed body, and per attempt its request headers and the start of the response body.
   */
  async deliveryDetail(organizationId: Owner, webhookId: string, deliveryId: string) {
    await this.owned(organizationId, webhookId);
    const delivery = orNotFound(await this.repo.findDelivery(webhookId, deliveryId), 'delivery');
    const attempts = await this.repo.attemptsOf([deliveryId]);
    return {
      ...deliveryView(delivery, attempts),
      payload: delivery.payload,
      exchanges: attempts.map((a) => ({
        attempted_at: a.attempted_at,
        request_headers: a.request_headers ? (JSON.parse(a.request_headers) as Record<string, string>) : null,
        status_code: a.status_code,
        response_body: a.response_body,
        error: a.error,
      })),
    };
  }

  /**
   * Queues a `webhook.test` event to this one endpoint, whatever its event types (the console's
   * "Send a test event"). It is not an event of the organization: not in the event stream or the
   * events table, and no other endpoint gets it. 409 while the endpoint is disabled.
   */
  async sendTestEvent(organizationId: Owner, webhookId: string) {
    const webhook = await this.owned(organizationId, webhookId);
    if (webhook.enabled === 0) throw new ApiError('conflict', 'The webhook is disabled; enable it before testing it.');
    const at = this.clock.now();
    const now = at.toISOString();
    const envelope = {
      id: newId('evt', this.clock, at),
      type: TEST_EVENT_TYPE,
      created_at: now,
      organization_id: organizationId,
      data: { webhook_id: webhookId, message: 'A test event: your endpoint is reachable and verifies signatures.' },
    };
    const row = this.deliveryRow(webhookId, envelope, JSON.stringify(envelope), at);
    await this.repo.insertDeliveries(this.repo.db, [row]);
    this.signals.emit('queued');
    return deliveryView(row, []);
  }

  /** Makes a delivery due now (again, when it already succeeded or failed). */
  async retryDelivery(organizationId: Owner, webhookId: string, deliveryId: string, actor?: OperatorActor) {
    const webhook = await this.owned(organizationId, webhookId);
    const delivery = orNotFound(await this.repo.findDelivery(webhookId, deliveryId), 'delivery');
    if (webhook.enabled === 0)
      throw new ApiError('conflict', 'The webhook is disabled; enable it (PATCH enabled: true) before retrying.');
    const now = this.clock.now().toISOString();
    const status = delivery.status === 'succeeded' || delivery.status === 'failed' ? 'pending' : delivery.status;
    await transact(this.repo.db, async (tx) => {
      if (!(await this.repo.requeue(tx, deliveryId, status, now)))
        throw new ApiError('conflict', 'An attempt of this delivery is in progress.');
      await this.recordOperatorChange(tx, actor, 'webhook.retry_delivery', webhookId, { delivery_id: deliveryId });
    });
    this.signals.emit('queued');
    const attempts = await this.repo.attemptsOf([deliveryId]);
    return deliveryView({ ...delivery, status, next_attempt_at: now, lease_token: null, updated_at: now }, attempts);
  }

  /** Deletes finished deliveries older than the retention period, in batches; how many. */
  async prune(batch = 5_000): Promise<number> {
    const before = new Date(this.clock.now().getTime() - DELIVERY_RETENTION_MS).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await this.repo.deleteFinishedBefore(before, batch);
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  /** For the agent status page: endpoints, and those failing or disabled by failures. */
  summary(organizationId: string) {
    return this.repo.summary(organizationId);
  }

  /**
   * An operator event (contract §11: device.offline, ...), in the transaction of the change it
   * reports: the envelope has no organization and is not in any organization's event stream; it
   * goes to the operator's endpoints only.
   */
  async emitOperatorEvent(ex: Executor, type: DeviceEventType, data: Record<string, unknown>): Promise<void> {
    const at = this.clock.now();
    const id = newId('evt', this.clock, at);
    await this.fanOut(ex, { id, type, created_at: at.toISOString(), organization_id: null, data });
  }

  /** Emit hook: one pending delivery per enabled endpoint whose filter takes the event. */
  async fanOut(ex: Executor, envelope: EventEnvelope | OperatorEnvelope): Promise<void> {
    const endpoints = await this.repo.enabledWebhooks(ex, envelope.organization_id);
    const matching = endpoints.filter((w) => matchesEventType(JSON.parse(w.event_types) as string[], envelope.type));
    if (matching.length === 0) return;
    const payload = JSON.stringify(envelope);
    const at = this.clock.now();
    const rows = matching.map((w) => this.deliveryRow(w.id, envelope, payload, at));
    await this.repo.insertDeliveries(ex, rows);
    // The delivery loop claims them once committed; an event nobody subscribed to wakes nothing.
    afterCommit(ex, () => this.signals.emit('queued'));
  }

  /** A new delivery of `envelope` (sent as `payload`) to one endpoint, due now. */
  private deliveryRow(
    webhookId: string,
    envelope: { id: string; type: string; organization_id: string | null },
    payload: string,
    at: Date,
  ): WebhookDeliveriesTable {
    const now = at.toISOString();
    return {
      id: newId('dlv', this.clock, at),
      webhook_id: webhookId,
      organization_id: envelope.organization_id,
      event_id: envelope.id,
      event_type: envelope.type,
      payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_token: null,
      last_status_code: null,
      last_error: null,
      last_latency_ms: null,
      created_at: now,
      updated_at: now,
    };
  }
}
