// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { usageChart, usageTable, type DailyUsage } from './chart.ts';

const FEBRUARY = { year: 2027, month: 1 };
const day = (date: string, amount: string, sms = 1): DailyUsage => ({
  date,
  amount_usd: amount,
  by_type: [{ type: 'sms', quantity: sms, amount_usd: amount }],
});

describe('usage chart', () => {
  it('draws one bar per day with usage, placed by day of month and scaled to a round axis', () => {
    const svg = String(usageChart('c', FEBRUARY, [day('2027-02-01', '0.04', 4), day('2027-02-28', '0.018', 2)]));
    const bars = [
      ...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)">/g),
    ].map((m) => m.slice(1).map(Number));
    assert.equal(bars.length, 2);
    const [first, last] = bars;
    assert.ok(first[0] < 70 && last[0] > 680, 'day 1 on the left, day 28 of February on the right');
    // The axis tops at $0.05 (the next round figure above $0.04): heights 0.8 and 0.36 of the plot.
    assert.match(svg, />\$0\.05<\/text>/);
    assert.equal(first[3], 144);
    assert.equal(last[3], 64.8);
    assert.match(svg, /<title>February 28: \$0\.018 \(2 SMS\)<\/title>/);
    assert.match(svg, />28<\/text>/, 'the last day of the month is labelled');
  });

  it('gives a tiny amount a visible bar, and draws nothing for a month without usage', () => {
    const svg = String(usageChart('c', FEBRUARY, [day('2027-02-02', '1.00'), day('2027-02-03', '0.000001')]));
    assert.match(svg, /height="1\.0"><title>February 3/);
    assert.equal(usageChart('c', FEBRUARY, []), null);
    assert.equal(String(usageTable(FEBRUARY, [])), '');
  });

  it('lists the same figures in a table with a header per column and per row', () => {
    const table = String(usageTable(FEBRUARY, [day('2027-02-05', '0.03', 3)]));
    assert.match(table, /<caption>Usage by day in February 2027 \(days with usage only\)<\/caption>/);
    assert.match(table, /<th scope="col" class="num">Cell-months<\/th>/);
    assert.match(table, /<th scope="row"><time datetime="2027-02-05">February 5<\/time><\/th>/);
    // Each figure labelled with its column (read on a phone, where the head row is not shown).
    assert.deepEqual(
      [...table.matchAll(/<td data-label="([^"]+)" class="num">([^<]*)<\/td>/g)].map((m) => `${m[1]}: ${m[2]}`),
      ['SMS: 3', 'MMS: 0', 'Cell-months: 0', 'Amount: $0.03'],
    );
  });
});
