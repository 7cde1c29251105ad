// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// Pure units of billing: money text, prices, addresses, periods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUsd, usdExact, usdNumber, usdString } from './money.ts';
import { canonicalAddress, decodeBase58 } from './networks.ts';
import { DEFAULT_PRICES, parsePrices, PricesError } from './pricing.ts';
import { addMonths } from './service.ts';

describe('money', () => {
  it('parses decimal dollars with at most 2 decimals into micro-USD', () => {
    assert.equal(parseUsd('20'), 20_000_000);
    assert.equal(parseUsd('12.5'), 12_500_000);
    assert.equal(parseUsd('0.01'), 10_000);
    for (const bad of ['', '-1', '1e3', '1.234', 'NaN', '01', ' 5', '5.', '.5', 'Infinity', '0x10'])
      assert.equal(parseUsd(bad), null, bad);
  });

  it('writes amounts to pay rounded up to the cent, exact amounts with up to 6 decimals, numbers exactly', () => {
    assert.equal(usdString(20_000_000), '20.00');
    assert.equal(usdString(5_001), '0.01');
    assert.equal(usdExact(5_000), '0.005');
    assert.equal(usdExact(12_500_000), '12.50');
    assert.equal(usdExact(-10_000), '-0.01');
    assert.equal(usdNumber(12_345_678), 12.345678);
  });
});

describe('prices', () => {
  it('overrides the defaults field by field and keeps the other tiers', () => {
    const prices = parsePrices(
      '{"tiers": {"starter": {"price_usd": 25, "cells": 2}, "team": {"price_usd": 50, "cells": 4}}, "sms_segment_usd": 0.005}',
    );
    assert.deepEqual(prices.tiers.starter, { priceMicros: 25_000_000, includedCells: 2 });
    assert.deepEqual(prices.tiers.pro, DEFAULT_PRICES.tiers.pro);
    assert.equal(prices.tiers.team.includedCells, 4);
    assert.equal(prices.smsSegmentMicros, 5_000);
    assert.equal(prices.mmsMicros, DEFAULT_PRICES.mmsMicros);
  });

  it("takes the contract's form: a tier priced with `usd` and amounts as decimal strings", () => {
    const prices = parsePrices(
      '{"tiers":{"starter":{"usd":"20.00","cells":1}},"sms_segment_usd":"0.01","mms_usd":"0.035"}',
    );
    assert.deepEqual(prices.tiers.starter, { priceMicros: 20_000_000, includedCells: 1 });
    assert.equal(prices.smsSegmentMicros, 10_000);
    assert.equal(prices.mmsMicros, 35_000);
  });

  for (const bad of [
    '[]',
    'nope',
    '{"sms": 1}',
    '{"mms_usd": -1}',
    '{"mms_usd": "-0.03"}',
    '{"mms_usd": "1e2"}',
    '{"tiers": {"pro": {"usd": "1", "price_usd": 1, "cells": 1}}}',
    '{"tiers": {"pro": {"price_usd": 1}}}',
    '{"tiers": {"Pro": {"price_usd": 1, "cells": 1}}}',
    '{"min_amount_usd": 0}',
    '{"extra_cell_usd": 0.0000001}',
  ]) {
    it(`refuses ${bad}`, () => assert.throws(() => parsePrices(bad), PricesError));
  }
});

describe('addresses', () => {
  it('checksums EVM addresses and refuses a wrong checksum', () => {
    assert.equal(
      canonicalAddress('base', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'),
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    );
    assert.equal(canonicalAddress('base', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'), null);
  });

  it('decodes base58 and takes 32-byte Solana keys only', () => {
    assert.deepEqual(decodeBase58('11'), Uint8Array.from([0, 0]));
    assert.equal(decodeBase58('0OIl'), null);
    assert.equal(
      canonicalAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    );
    assert.equal(canonicalAddress('solana', '3yZe7d'), null);
  });
});

describe('periods', () => {
  it('adds calendar months, keeping the day or the last day of a shorter month', () => {
    assert.equal(addMonths(new Date('2026-11-21T12:00:00.000Z'), 1).toISOString(), '2026-12-21T12:00:00.000Z');
    assert.equal(addMonths(new Date('2026-01-31T00:00:00.000Z'), 1).toISOString(), '2026-02-28T00:00:00.000Z');
    assert.equal(addMonths(new Date('2026-12-15T00:00:00.000Z'), 14).toISOString(), '2028-02-15T00:00:00.000Z');
  });
});
