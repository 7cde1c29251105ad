// CSV as spreadsheets read it (RFC 4180): fields with a comma, quote or line break are quoted,
// quotes doubled, lines end in CRLF. A field a spreadsheet would run as a formula (starting with
// = + - @, a tab or a carriage return) is written with a leading apostrophe, so opening the export
// never runs what a texter wrote. E.164 numbers (+ and digits only) are left alone: a spreadsheet
// reads them as a number at worst, never as a call.
const FORMULA_START = /^[=+\-@\t\r]/;
const E164 = /^\+\d{1,15}$/;

/** One field, guarded and quoted as needed. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !E164.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of fields, CRLF-terminated. */
export const csvLine = (fields: readonly (string | number | null | undefined)[]) =>
  `${fields.map(csvField).join(',')}\r\n`;
