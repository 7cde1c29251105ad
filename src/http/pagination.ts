// Cursor pagination (contract §2): ?limit= 1-200 (default 50) and an opaque ?cursor=; lists
// answer { <plural>: [...], next_cursor }. Cursors carry the sort key of the last row seen, so
// every page is an index range scan, never an OFFSET.
import { Type } from 'typebox';
import { ApiError } from '../lib/errors.ts';

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1-200.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page.' })),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'Cursor of the next page, or null on the last page.' });

export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor with `arity` parts; a forged one is a 400. */
export function decodeCursor(cursor: string | undefined, arity: number): (string | number)[] | null {
  if (cursor === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === arity && parsed.every((v) => typeof v === 'string' || typeof v === 'number')) {
      return parsed;
    }
  } catch {
    // fall through to the 400
  }
  throw new ApiError('invalid_request', 'cursor is not a cursor this list returned.', {
    errors: [{ field: 'cursor', code: 'invalid_format', message: 'cursor is not a cursor this list returned.' }],
  });
}

/** Given rows fetched with limit + 1, the page and the cursor of the next one. */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => readonly (string | number)[]): { items: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { items: rows, next_cursor: null };
  const items = rows.slice(0, limit);
  return { items, next_cursor: encodeCursor(keyOf(items[items.length - 1])) };
}
