// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './errors.ts';
import { normalizePhone, requirePhone } from './phone.ts';

describe('phone numbers', () => {
  it('normalises international numbers to E.164', () => {
    assert.equal(normalizePhone('+14155550123'), '+14155550123');
    assert.equal(normalizePhone(' +1 (415) 555-0123 '), '+14155550123');
    assert.equal(normalizePhone('+44 20 7183 8750'), '+442071838750');
  });

  it('rejects national, malformed, impossible and decorated numbers', () => {
    for (const bad of [
      '4155550123',
      '',
      '+',
      'abc',
      '+1415555012',
      '+1415555012345678',
      '+15551234567',
      'call +14155550123',
      '+14155550123 ext. 5',
      'tel:+14155550123',
      '00 14155550123',
    ]) {
      assert.equal(normalizePhone(bad), null, bad);
    }
  });

  it('requirePhone answers 400 invalid_request naming the field', () => {
    assert.throws(
      () => requirePhone('to', '12345'),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'invalid_request');
        assert.deepEqual(
          error.errors?.map((e) => [e.field, e.code]),
          [['to', 'invalid_phone_number']],
        );
        return true;
      },
    );
  });
});
