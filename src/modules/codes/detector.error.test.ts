import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectCode } from './detector.ts';

describe('verification code detector: what is not a code', () => {
  const none = [
    ['no code word', 'Your table for 4 is ready, 4821 Main St.'],
    ['a code word without a code', 'Never share your code with anyone, not even us.'],
    ['a promo code', 'Use promo code 2026 at checkout.'],
    ['an amount near a code word', 'Your OTP purchase of $4821 was approved.'],
    ['a card number near a code word', 'Security alert: card ending in 4821 used. Reply with your PIN? Never.'],
    ['a year near a code word', 'Your verification expired on December 31, 2026.'],
    ['a time near a code word', 'Code review at 10:30 tomorrow.'],
    ['a phone number near a code word', 'For your code call 415 555 0123.'],
    ['an order number near a code word', 'Code words aside, order #58213 has shipped.'],
    ['a word after "code is"', 'Your code is valid for 10 minutes.'],
    ['letters only after "code is"', 'Your code is EXPIRED.'],
    ['too long a number', 'Your verification code 123456789 is invalid.'],
    ['too short a number', 'Your code is 123.'],
  ] as const;
  for (const [what, text] of none)
    it(`finds no code: ${what}`, () => {
      assert.equal(detectCode(text), null);
    });

  it('prefers the number the text announces over one nearer a code word', () => {
    assert.deepEqual(detectCode('Code 58 of 60. Your code is 4821.'), { code: '4821', service: null });
  });

  it('gives no service for a capitalised word that is not one', () => {
    assert.deepEqual(detectCode('Your Verification code is 4821'), { code: '4821', service: null });
  });
});
