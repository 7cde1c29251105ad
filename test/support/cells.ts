// Test helpers for modules that need cells (messages, pods) and for checking cell events.
import type { TestApp } from '../harness.ts';

/** Creates a cell for the organization behind `headers`; the cell view. */
export async function createCell(t: TestApp, headers: Record<string, string>, displayName = 'Support line') {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/cells',
    headers,
    payload: { display_name: displayName },
  });
  if (response.statusCode !== 201) throw new Error(`creating a cell failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The event rows of one type, oldest first, with their data parsed. */
export async function eventsOf(t: TestApp, type: string) {
  const rows = await t.database.db
    .selectFrom('events')
    .selectAll()
    .where('type', '=', type)
    .orderBy('seq', 'asc')
    .execute();
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) }));
}
