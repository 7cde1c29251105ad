// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countSegments, encodingOf } from './segments.ts';

const seg = (body: string) => countSegments(body).segments;

describe('SMS segments, GSM-7', () => {
  it('counts the empty body as no segment', () => {
    assert.deepEqual(countSegments(''), { encoding: 'GSM-7', segments: 0 });
  });

  it('keeps 160 basic characters in one segment and splits 161 into two parts of 153', () => {
    assert.deepEqual(countSegments('a'.repeat(160)), { encoding: 'GSM-7', segments: 1 });
    assert.equal(seg('a'.repeat(161)), 2);
    assert.equal(seg('a'.repeat(306)), 2);
    assert.equal(seg('a'.repeat(307)), 3);
    assert.equal(seg('a'.repeat(1600)), 11);
  });

  it('treats the whole basic table, including accented letters, Greek capitals and CR/LF, as GSM-7', () => {
    const basic =
      '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
    assert.equal(encodingOf(basic), 'GSM-7');
    assert.equal(seg(basic), 1);
  });

  it('counts each extension-table character (^ { } \\ [ ~ ] | € form feed) as two septets', () => {
    for (const char of ['^', '{', '}', '\\', '[', '~', ']', '|', '€', '\f']) {
      assert.equal(encodingOf(char), 'GSM-7', char);
      assert.equal(seg(char.repeat(80)), 1, `80 × ${char} = 160 septets`);
      assert.equal(seg(char.repeat(81)), 2, `81 × ${char} = 162 septets`);
    }
    assert.equal(seg('a'.repeat(159) + '€'), 2);
    assert.equal(seg('a'.repeat(158) + '€'), 1);
  });

  it('never splits an escape sequence across parts', () => {
    // 152 septets then a two-septet char: it cannot sit in the 153rd slot, so it opens part 2.
    assert.equal(seg('a'.repeat(152) + '€' + 'a'.repeat(152)), 3);
    assert.equal(seg('a'.repeat(151) + '€' + 'a'.repeat(153)), 2);
  });
});

describe('SMS segments, UCS-2', () => {
  it('switches to UCS-2 for any character outside the GSM alphabet', () => {
    assert.equal(encodingOf('hello ç'), 'UCS-2'); // ç (lower case) is not in GSM 03.38; Ç is
    assert.equal(encodingOf('price: 5 ₹'), 'UCS-2');
    assert.equal(encodingOf('`'), 'UCS-2');
    assert.equal(encodingOf('привет'), 'UCS-2');
  });

  it('keeps 70 code units in one segment and splits 71 into parts of 67', () => {
    assert.deepEqual(countSegments('д'.repeat(70)), { encoding: 'UCS-2', segments: 1 });
    assert.equal(seg('д'.repeat(71)), 2);
    assert.equal(seg('д'.repeat(134)), 2);
    assert.equal(seg('д'.repeat(135)), 3);
  });

  it('counts an emoji as two code units', () => {
    assert.equal(seg('😀'.repeat(35)), 1);
    assert.equal(seg('😀'.repeat(36)), 2);
  });

  it('never splits a surrogate pair across parts', () => {
    // 66 units then an emoji: the pair does not fit in the 67th unit, so it opens part 2.
    assert.equal(seg('д'.repeat(66) + '😀' + 'д'.repeat(66)), 3); // 134 units, naively 2 parts
    assert.equal(seg('д'.repeat(65) + '😀' + 'д'.repeat(67)), 2);
  });

  it('counts extension characters as one unit once the message is UCS-2', () => {
    assert.equal(seg('€'.repeat(69) + 'д'), 1);
  });
});
