// YAML for JSON data (the OpenAPI document). Not the `yaml` package: its stringify of the ~900 kB
// document blocked the event loop for 1 to 1.5 s; this single walk takes tens of milliseconds, and
// reads back to exactly the input (a test parses it with `yaml`). Scalars are plain only when no
// YAML 1.1 or 1.2 reader could take them for anything else, else double-quoted with JSON's escapes;
// a multi-line string is a literal block (`|`) unless it holds a character a block cannot carry.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// Starts with an ASCII letter; no `:` or `#` anywhere (they could end the scalar), no `"` `[` `{`
// or control character; printable non-ASCII (dashes, arrows) as is. No trailing space (checked apart).
const PLAIN = /^[A-Za-z][A-Za-z0-9 _.,/()+=@$%&*!?;'<>|~^\u00a1-\u2027\u2030-\ud7ff\ue000-\ufefe\uff00-\ufffd-]*$/;
// Words YAML 1.1 or 1.2 resolves to a boolean or null, and what some 1.1 readers take for a float.
const RESERVED = /^(?:y|n|yes|no|on|off|true|false|null|e[-+]?[0-9][0-9_]*)$/i;
// What a literal block can carry: tab, line feed and printable characters (YAML 1.2 c-printable
// less the BOM, C1 controls, NEL and the Unicode line and paragraph separators).
const BLOCK_SAFE = /^[\t\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\ud800-\udfff]*$/;
// Characters JSON.stringify leaves as they are but a YAML double-quoted scalar must escape.
const NOT_PRINTABLE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;

const quoted = (text: string): string =>
  JSON.stringify(text).replace(NOT_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const plainOrQuoted = (text: string): string =>
  PLAIN.test(text) && !text.endsWith(' ') && !RESERVED.test(text) ? text : quoted(text);

/** A literal block for a multi-line string at `indent`, or null when it must be quoted. */
function literal(text: string, indent: string): string | null {
  if (!BLOCK_SAFE.test(text) || text.trim() === '') return null;
  const lines = text.split('\n');
  // Trailing spaces in a block are invisible and readers differ on blank lines holding spaces.
  if (lines.some((line) => /[ \t]$/.test(line))) return null;
  // Chomping: `-` strips the final line break, none keeps one, `+` keeps them all.
  let chomp = '-';
  if (text.endsWith('\n')) {
    lines.pop();
    chomp = text.endsWith('\n\n') ? '+' : '';
  }
  // The first line with content sets the block's indentation: when it starts with a space or a
  // tab, the indentation is stated (`|2`) instead.
  const stated = /^[ \t]/.test(lines.find((line) => line !== '') ?? '') ? '2' : '';
  const body = lines.map((line) => (line === '' ? '' : indent + line)).join('\n');
  return `|${stated}${chomp}\n${body}`;
}

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function scalar(value: Json, indent: string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  // Finite: the JSON round trip in jsonToYaml made NaN and the infinities null.
  if (typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string')
    return value.includes('\n') ? (literal(value, indent) ?? quoted(value)) : plainOrQuoted(value);
  throw new TypeError(`YAML of JSON data: a ${typeof value} is not JSON`);
}

/** Lines of `value` (a non-empty object or array) at `indent`, pushed onto `out`. */
function block(value: Json[] | { [key: string]: Json }, indent: string, out: string[]): void {
  const inner = `${indent}  `;
  const entries: [string, Json][] = Array.isArray(value) ? value.map((item) => ['-', item]) : Object.entries(value);
  for (const [name, item] of entries) {
    const key = Array.isArray(value) ? '-' : `${name.includes('\n') ? quoted(name) : plainOrQuoted(name)}:`;
    const nested = Array.isArray(item) ? item.length > 0 : isObject(item) && Object.keys(item).length > 0;
    if (!nested) {
      const text = Array.isArray(item) ? '[]' : isObject(item) ? '{}' : scalar(item, inner);
      out.push(`${indent}${key} ${text}`);
    } else if (Array.isArray(value)) {
      // An item that is itself a block starts on the dash's line: its first line, indented two
      // further, gets the dash in place of the indentation's last two spaces.
      const start = out.length;
      block(item as Json[] | { [key: string]: Json }, inner, out);
      out[start] = `${indent}- ${out[start].slice(inner.length)}`;
    } else {
      out.push(`${indent}${key}`);
      block(item as Json[] | { [key: string]: Json }, inner, out);
    }
  }
}

/** The YAML text of JSON data, ending with a line break. */
export function jsonToYaml(value: unknown): string {
  // A round trip through JSON: what JSON.stringify drops (undefined, functions) or turns (toJSON,
  // dates) is dropped or turned alike, so the YAML says what the JSON says.
  const data = JSON.parse(JSON.stringify(value) ?? 'null') as Json;
  const out: string[] = [];
  if (Array.isArray(data) ? data.length > 0 : isObject(data) && Object.keys(data).length > 0)
    block(data as Json[], '', out);
  // A lone string is quoted: a literal block needs a parent to be indented from.
  else
    out.push(
      Array.isArray(data) ? '[]' : isObject(data) ? '{}' : typeof data === 'string' ? quoted(data) : scalar(data, ''),
    );
  return `${out.join('\n')}\n`;
}
