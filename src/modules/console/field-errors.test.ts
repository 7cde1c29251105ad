// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sayFieldError } from './field-errors.ts';

const LABELS = { phone_number: 'The phone number', to: 'The number' };

describe("the API's field errors in a form's words", () => {
  it("says the form's label instead of the API's field name", () => {
    assert.equal(
      sayFieldError('phone_number', 'phone_number must be a valid phone number.', LABELS),
      'The phone number must be a valid phone number.',
    );
    assert.equal(
      sayFieldError('label', 'label must NOT have more than 100 characters.', LABELS),
      'This field must NOT have more than 100 characters.',
    );
  });

  it('says an item of a list by its line', () => {
    assert.equal(
      sayFieldError('to.3', 'to.3 must be a valid phone number.', LABELS),
      'Line 4: must be a valid phone number.',
    );
    assert.equal(sayFieldError('numbers/0', 'Not a number.', LABELS), 'Line 1: Not a number.');
  });

  it('keeps a message that does not start with the field, capitalized', () => {
    assert.equal(sayFieldError('url', 'must use https', LABELS), 'Must use https');
  });
});
