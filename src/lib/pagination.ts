// Keyset pagination (contract §2): a page of `limit` rows (1-200, default 50) and an opaque cursor
// carrying the sort key of the last row seen, so every page is an index range scan, never an OFFSET.
import { ApiError } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export type CursorKey = (string | number)[];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor with `arity` parts; a forged one is a 400. */
export function decodeCursor(cursor: string | undefined, arity: number): CursorKey | null {
  if (cursor === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === arity &&
      parsed.every((v) => typeof v === 'string' || typeof v === 'number')
    ) {
      return parsed;
    }
  } catch {
    // fall through to the 400
  }
  throw new ApiError('invalid_request', 'cursor is not a cursor this list returned.', {
    errors: [{ field: 'cursor', code: 'invalid_format', message: 'cursor is not a cursor this list returned.' }],
  });
}

/**
 * One page of a list. `fetch` gets the key of the last row of the previous page (null on the first
 * page) and how many rows to read (one more than the page, to know whether another follows);
 * `keyOf` gives a row's sort key, whose arity the cursor is checked against.
 */
export async function listPage<Row>(
  query: PageQuery,
  fetch: (after: CursorKey | null, count: number) => Promise<Row[]>,
  keyOf: (row: Row) => CursorKey,
  arity = 1,
): Promise<Page<Row>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await fetch(decodeCursor(query.cursor, arity), limit + 1);
  if (rows.length <= limit) return { items: rows, next_cursor: null };
  const items = rows.slice(0, limit);
  return { items, next_cursor: encodeCursor(keyOf(items[items.length - 1])) };
}

const idKey = (row: { id: string }) => [row.id];
/** A page of rows keyed by their ids, newest first: `fetch` reads `count` rows below the cursor's id. */
export const pageById = <Row extends { id: string }>(
  query: PageQuery,
  fetch: (beforeId: string | null, count: number) => Promise<Row[]>,
) => listPage(query, (after, count) => fetch(after ? String(after[0]) : null, count), idKey);
