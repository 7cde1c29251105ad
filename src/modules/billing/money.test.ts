// @database-independent
// The one way money is written for people (console pages, error messages): with its dollar sign.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dollars, dollarsOfNumber, usd } from './money.ts';

describe('dollars', () => {
  it('writes micro-USD rounded up to the cent, or exact, with the sign before the dollar sign', () => {
    assert.equal(dollars(usd(20)), '$20.00');
    assert.equal(dollars(5_001), '$0.01');
    assert.equal(dollars(5_000, true), '$0.005');
    assert.equal(dollars(-10_000), '-$0.01');
  });

  it("writes an interface's decimal string and a JSON number of dollars", () => {
    assert.equal(dollars('12.50'), '$12.50');
    assert.equal(dollars('-0.013'), '-$0.013');
    assert.equal(dollarsOfNumber(0.29), '$0.29');
    assert.equal(dollarsOfNumber(12.5), '$12.50');
  });
});
