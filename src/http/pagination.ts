// The query and response parts of every list route (contract §2); the paging itself is
// src/lib/pagination.ts's listPage.
import { Type, type TSchema } from 'typebox';
import { DEFAULT_PAGE_SIZE } from '../lib/pagination.ts';

export const PaginationQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: DEFAULT_PAGE_SIZE, description: 'Page size, 1-200.' }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page.' }),
  ),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Cursor of the next page, or null on the last page.',
});

/** The schema of a page of `key`: `item`s and the next page's cursor, with one example item. */
export function pageOf(key: string, item: TSchema, $id: string, description: string, example: object) {
  const examples = [{ [key]: [example], next_cursor: null }];
  return Type.Object({ [key]: Type.Array(item), next_cursor: NextCursor }, { $id, description, examples });
}
