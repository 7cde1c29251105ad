// What the Messages section's tests share: many stored messages at once (an export's volume is
// seeded straight into the table: sending a thousand texts through the API would test the API),
// and reading a CSV answer back into rows.
import { newId } from '../../src/lib/ids.ts';
import { newMessageRow } from '../../src/modules/messages/views.ts';
import type { TestApp } from '../harness.ts';
import type { Line } from './messages.ts';

/** `count` inbound texts from `from` to the line's cell, one millisecond apart, bodies `${prefix} n`. */
export async function storeInbound(t: TestApp, line: Line, count: number, from: string, prefix: string): Promise<void> {
  const rows = Array.from({ length: count }, (_, n) => {
    const at = new Date(t.clock.now().getTime() + n);
    return newMessageRow({
      id: newId('msg', t.clock, at),
      organization_id: line.org.organizationId,
      cell_id: line.cell.id,
      conversation_id: `conv_seeded${line.cell.id.slice(5)}`,
      direction: 'inbound',
      from_number: from,
      to_number: line.cell.phone_number,
      body: `${prefix} ${n}`,
      status: 'received',
      created_at: at.toISOString(),
    });
  });
  for (let start = 0; start < rows.length; start += 200)
    await t.database.db
      .insertInto('messages')
      .values(rows.slice(start, start + 200))
      .execute();
  t.clock.advance(count);
}

/** A CSV document (RFC 4180, CRLF lines) as rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
