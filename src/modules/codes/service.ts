// Verification codes (contract §12): a cell's codes newest first, and the long-poll for the first
// code after `since`, woken in this process by the inbound upload that stores a code (CellWakeups)
// and re-checking on a short interval for codes stored by other processes.
import { decodeTime } from 'ulid';
import type { Clock } from '../../lib/clock.ts';
import { invalidField } from '../../lib/errors.ts';
import { idFloor } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { requirePhone } from '../../lib/phone.ts';
import type { CellWakeups } from '../messages/wakeups.ts';
import type { CodeRow, CodesRepository } from './repository.ts';

/** The longest wait of the REST route (the MCP tool may wait as long as its other waits). */
export const MAX_WAIT_S = 30;
/** Waits re-check this often, to find codes stored by other processes. */
const RECHECK_MS = 250;

export interface CodeQuery extends PageQuery {
  /** A message id (msg_...), a next_since, or an ISO 8601 time: only codes received after it. */
  since?: string;
  /** Milliseconds to wait for a first code after `since` when there is none yet. */
  waitMs?: number;
  from?: string;
  service?: string;
}

export interface CodesDeps {
  repo: CodesRepository;
  /** The organization's cell; 404 for an unknown, foreign or released one. */
  cells: { getOwned(organizationId: string, cellId: string): Promise<{ id: string }> };
  clock: Clock;
  arrivals: CellWakeups;
}

export type CodeView = ReturnType<typeof codeView>;
export const codeView = (row: CodeRow) => ({
  code: row.code,
  message_id: row.id,
  from: row.from_number,
  service: row.code_service,
  received_at: row.received_at ?? row.created_at,
});

export class CodesService {
  private readonly deps: CodesDeps;
  private waiting = 0;

  constructor(deps: CodesDeps) {
    this.deps = deps;
  }

  /** Waits in progress in this process (a gauge; tests wait on it). */
  get activeWaits(): number {
    return this.waiting;
  }

  /**
   * The cell's codes after `since`, newest first. With `waitMs` and none yet, waits (real time) for
   * the first one; without `since`, a wait counts from now. Stops waiting when `signal` aborts.
   */
  async list(organizationId: string, cellId: string, query: CodeQuery, signal?: AbortSignal) {
    const cell = await this.deps.cells.getOwned(organizationId, cellId);
    const waitMs = query.waitMs ?? 0;
    const afterId =
      query.since !== undefined
        ? sinceBound(query.since)
        : waitMs > 0
          ? timeBound(this.deps.clock.now().getTime())
          : undefined;
    const from = query.from === undefined ? undefined : requirePhone('from', query.from);
    const read = () =>
      pageById(query, (beforeId, limit) =>
        this.deps.repo.list({ cellId: cell.id, afterId, beforeId, from, service: query.service, limit }),
      );
    let page = await read();
    if (page.items.length === 0 && waitMs > 0 && query.cursor === undefined) {
      const deadline = performance.now() + waitMs; // elapsed real time, not a date
      this.waiting += 1;
      try {
        for (;;) {
          const left = deadline - performance.now();
          if (page.items.length > 0 || left <= 0 || signal?.aborted) break;
          await this.deps.arrivals.wait(cell.id, Math.min(RECHECK_MS, left), signal ?? new AbortController().signal);
          page = await read();
        }
      } finally {
        this.waiting -= 1;
      }
    }
    return { codes: page.items.map(codeView), next_cursor: page.next_cursor, since: afterId };
  }
}

/** A message id's time and randomness, or a time bound's time only, in ULID's Crockford base32. */
const BOUND = /^msg_[0-9a-hjkmnp-tv-z]{10}(?:[0-9a-hjkmnp-tv-z]{16})?$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** The smallest message id of the millisecond `ms`: every message created at or after it sorts above. */
export const timeBound = (ms: number) => idFloor('msg', ms);

/** Whether `since` is a message id or a time bound (also MCP's waits'), of a time ULID can hold. */
export function isBound(since: string): boolean {
  if (!BOUND.test(since)) return false;
  try {
    decodeTime(`${since.slice(4, 14).toUpperCase()}${'0'.repeat(16)}`);
    return true;
  } catch {
    return false; // a first character beyond 7
  }
}

/** The exclusive lower bound on message ids that `since` stands for; 400 for anything else. */
export function sinceBound(since: string): string {
  if (isBound(since)) return since;
  const ms = Date.parse(since);
  if (!ISO_8601.test(since) || Number.isNaN(ms))
    throw invalidField(
      'since',
      'invalid_format',
      'since is a message id (msg_...), the next_since of a wait, or an ISO 8601 time with its offset.',
    );
  return timeBound(ms);
}
