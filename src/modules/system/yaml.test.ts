// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// YAML of JSON data (src/modules/system/yaml.ts): every value reads back, with the `yaml` package
// as YAML 1.2 and as YAML 1.1, to exactly what JSON.parse of the same data gives.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { jsonToYaml } from './yaml.ts';

const roundTrips = (value: unknown) => {
  const text = jsonToYaml(value);
  const expected = JSON.parse(JSON.stringify(value)) as unknown;
  assert.deepEqual(parse(text), expected, text);
  assert.deepEqual(parse(text, { version: '1.1' }), expected, text);
  return text;
};

// Strings a reader could take for something else, or that need escapes or a block.
const TRICKY = [
  '',
  ' ',
  'plain words',
  'trailing ',
  ' leading',
  'a: b',
  'a #b',
  '#x',
  '- x',
  '? x',
  ': x',
  '&a',
  '*a',
  '!t',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  'yes',
  'No',
  'ON',
  'off',
  'y',
  'n',
  'true',
  'False',
  'null',
  'Null',
  '~',
  'e5',
  'E-3',
  '1',
  '0x1F',
  '1e3',
  '.inf',
  '-.Inf',
  '.NaN',
  '1:20',
  '0o7',
  '007',
  '+1',
  '"quoted"',
  "it's",
  'tab\there',
  'back\\slash',
  'café — →',
  'emoji 😀',
  'nbsp\u00a0x',
  'del\x7f',
  'c1\u0085',
  'ls\u2028ps\u2029',
  'bom\ufeff',
  'nul\u0000',
  'cr\rlf',
  'two\nlines',
  'ends\n',
  'ends twice\n\n',
  '\nstarts',
  '  indented\nnext',
  '\tindented\nnext',
  'blank\n\nline',
  'spaces \nafter',
  'only\n   \nspaces',
  '\n',
  '\n\n',
  'x\r\ny',
  '{a}',
  '[a]',
  'a, b',
  'a,b]',
  'k: v\n- item',
  '--- x',
  '...',
  'a\n---\nb',
  'a\n...\nb',
];

describe('YAML of JSON data', () => {
  it('reads back every tricky string as a value, an array item and a key', () => {
    for (const text of TRICKY) {
      roundTrips({ value: text });
      roundTrips([text, [text], { [text]: text }]);
      roundTrips({ [text]: { nested: [text, { deeper: text }] } });
    }
  });

  it('reads back numbers, booleans, null, empty and nested containers', () => {
    roundTrips({
      numbers: [0, -1, 1.5, 1e21, -2.5e-7, 9007199254740991],
      flags: [true, false],
      nothing: null,
      empty: { object: {}, array: [] },
    });
    roundTrips([[[1, [2]], []], [{}], { a: [{ b: [{ c: {} }] }] }]);
    for (const scalar of [null, true, 3, 'top', 'multi\nline', [], {}]) roundTrips(scalar);
  });

  it('drops what JSON drops and writes what toJSON gives', () => {
    assert.equal(
      jsonToYaml({ kept: 1, dropped: undefined, at: new Date('2026-11-21T12:00:00.000Z') }),
      'kept: 1\nat: "2026-11-21T12:00:00.000Z"\n',
    );
  });

  it('writes plain scalars where nothing else is meant, quotes where something else could be', () => {
    assert.equal(
      jsonToYaml({ title: 'Cellgate API', version: '0.1.0', '200': 'yes', 'a: b': 'e5' }),
      '"200": "yes"\ntitle: Cellgate API\nversion: "0.1.0"\n"a: b": "e5"\n',
    );
  });

  it('writes a multi-line string as a literal block, with its chomping and stated indentation', () => {
    assert.equal(roundTrips({ d: 'one\ntwo' }), 'd: |-\n  one\n  two\n');
    assert.equal(roundTrips({ d: 'one\n' }), 'd: |\n  one\n');
    assert.equal(roundTrips({ d: 'one\n\n' }), 'd: |+\n  one\n\n');
    assert.equal(roundTrips({ d: ['  code\nx'] }), 'd:\n  - |2-\n      code\n    x\n');
    // Characters a block cannot carry, or trailing spaces a reader would lose: quoted instead.
    assert.equal(roundTrips({ d: 'a\r\nb' }), 'd: "a\\r\\nb"\n');
    assert.equal(roundTrips({ d: 'a \nb' }), 'd: "a \\nb"\n');
  });

  it('writes numbers JSON cannot carry as JSON does: null', () => {
    assert.equal(jsonToYaml({ nan: Number.NaN, i: Number.POSITIVE_INFINITY }), 'nan: null\ni: null\n');
  });
});
