// What one organization keeps is bounded (contract §2 "Stored resources"). Each bounded resource
// has a counter row per owner (stored_counts: the organization, or the cell or pod of an ignore
// list), changed in the transaction that writes the resource: take() adds n only while the sum
// stays within the cap (one conditional upsert, so the check is O(1) and exact under concurrent
// requests on both databases: PostgreSQL locks the row, SQLite runs one writer at a time) and
// throws 409 conflict naming the limit and the fix; release() gives room back when the resource
// leaves (deleted, discarded, sent, or no longer scheduled). See docs/decisions.md.
import { sql } from 'kysely';
import type { Executor } from '../db/schema.ts';
import { ApiError } from '../lib/errors.ts';

export type StoredResource =
  | 'pods'
  | 'contact_lists'
  | 'list_numbers'
  | 'drafts'
  | 'discarded_drafts'
  | 'scheduled_messages'
  | 'webhooks'
  | 'ignored_participants';

/** The contract's caps: per organization, except ignored participants (per cell or pod). */
export const STORED_CAPS: Readonly<Record<StoredResource, number>> = {
  pods: 100,
  contact_lists: 1_000,
  list_numbers: 100_000,
  drafts: 10_000,
  // Not a refusal: past it, a discard removes the organization's oldest discarded drafts (drafts-service.ts).
  discarded_drafts: 10_000,
  scheduled_messages: 10_000,
  webhooks: 50,
  ignored_participants: 10_000,
};

const count = (n: number) => n.toLocaleString('en-US');

/** The 409's detail: the limit, and how to make room. */
const REFUSALS: Record<StoredResource, (cap: number) => string> = {
  pods: (cap) => `The organization keeps at most ${count(cap)} pods: delete a pod to make room.`,
  contact_lists: (cap) => `The organization keeps at most ${count(cap)} contact lists: delete a list to make room.`,
  list_numbers: (cap) =>
    `The organization's contact lists hold at most ${count(cap)} numbers in all: remove numbers or delete a list to make room.`,
  drafts: (cap) => `The organization keeps at most ${count(cap)} drafts: send or discard drafts to make room.`,
  discarded_drafts: (cap) => `The organization keeps at most ${count(cap)} discarded drafts: the oldest make room.`,
  scheduled_messages: (cap) =>
    `The organization keeps at most ${count(cap)} scheduled messages: cancel some, or wait for them to go out.`,
  webhooks: (cap) => `The organization keeps at most ${count(cap)} webhook endpoints: delete one to make room.`,
  ignored_participants: (cap) => `An ignore list holds at most ${count(cap)} participants: remove some to make room.`,
};

/** The 409 of a cap: a conflict that passes once room is made (a broadcast's planner waits on it). */
export class StoredCapReached extends ApiError {
  constructor(detail: string) {
    super('conflict', detail);
  }
}

export class StoredCaps {
  readonly caps: Readonly<Record<StoredResource, number>>;

  /** `caps` overrides the contract's values (tests shrink them). */
  constructor(caps: Partial<Record<StoredResource, number>> = {}) {
    this.caps = { ...STORED_CAPS, ...caps };
  }

  /**
   * Counts `n` more of the resource for the owner, in `tx` (the transaction that stores them);
   * 409 conflict, counting nothing, when that would pass the cap.
   */
  async take(tx: Executor, resource: StoredResource, ownerId: string, n = 1): Promise<void> {
    if (!(await this.tryTake(tx, resource, ownerId, n))) throw this.refusal(resource);
  }

  /** As take(), but false instead of the 409 (a batch refuses its sends one by one). */
  async tryTake(tx: Executor, resource: StoredResource, ownerId: string, n = 1): Promise<boolean> {
    if (n <= 0) return true;
    const cap = this.caps[resource];
    return (
      n <= cap &&
      (await tx
        .insertInto('stored_counts')
        .values({ owner_id: ownerId, resource, count: n })
        .onConflict((oc) =>
          oc
            .columns(['owner_id', 'resource'])
            .doUpdateSet({ count: sql<number>`stored_counts.count + ${n}` })
            .where('stored_counts.count', '<=', cap - n),
        )
        .returning('count')
        .executeTakeFirst()) !== undefined
    );
  }

  /**
   * 409 conflict unless `n` more would fit, counting nothing: the counter stays locked until the
   * transaction ends (on PostgreSQL), so what the caller counts beside it cannot change meanwhile.
   */
  async fits(tx: Executor, resource: StoredResource, ownerId: string, n: number): Promise<void> {
    await this.take(tx, resource, ownerId, n);
    await this.release(tx, resource, ownerId, n);
  }

  /** The 409 conflict of a take past the cap. */
  refusal(resource: StoredResource): ApiError {
    return new StoredCapReached(REFUSALS[resource](this.caps[resource]));
  }

  /** Gives back room for `n` of the resource that left, in the transaction that removed them. */
  async release(tx: Executor, resource: StoredResource, ownerId: string, n = 1): Promise<void> {
    if (n <= 0) return;
    await tx
      .updateTable('stored_counts')
      .set({ count: sql<number>`count - ${n}` })
      .where('owner_id', '=', ownerId)
      .where('resource', '=', resource)
      .execute();
  }

  /** release() for several owners at once: `counts` maps each owner to how many left. */
  async releaseAll(tx: Executor, resource: StoredResource, counts: ReadonlyMap<string, number>): Promise<void> {
    for (const [ownerId, n] of counts) await this.release(tx, resource, ownerId, n);
  }
}

/** How many of `items` each owner has. */
export function countBy<T>(items: readonly T[], ownerOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(ownerOf(item), (counts.get(ownerOf(item)) ?? 0) + 1);
  return counts;
}
