import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './errors.ts';
import { canonicalTimeZone, isTimeZone, quietEnd, requireQuietHours, zoneCacheSize } from './quiet-hours.ts';

const NY = { start: '21:00', end: '08:00', time_zone: 'America/New_York' };
const end = (quiet: typeof NY, at: string) => quietEnd(quiet, new Date(at))?.toISOString() ?? null;

describe('quiet hours', () => {
  it('is outside the window in the day and inside it at night, across midnight', () => {
    assert.equal(end(NY, '2026-11-24T17:00:00Z'), null); // 12:00 EST
    assert.equal(end(NY, '2026-11-25T01:59:00Z'), null); // 20:59 EST
    assert.equal(end(NY, '2026-11-25T02:00:00Z'), '2026-11-25T13:00:00.000Z'); // 21:00 EST → 08:00 EST
    assert.equal(end(NY, '2026-11-25T07:00:00Z'), '2026-11-25T13:00:00.000Z'); // 02:00 EST
    assert.equal(end(NY, '2026-11-25T12:59:00Z'), '2026-11-25T13:00:00.000Z'); // 07:59 EST
    assert.equal(end(NY, '2026-11-25T13:00:00Z'), null); // 08:00 EST: over
  });

  it('handles a window within one day', () => {
    const lunch = { start: '12:00', end: '13:30', time_zone: 'Europe/Paris' };
    assert.equal(end(lunch, '2026-07-01T10:15:00Z'), '2026-07-01T11:30:00.000Z'); // 12:15 CEST
    assert.equal(end(lunch, '2026-07-01T09:59:00Z'), null);
  });

  it('ends at local 08:00 across the spring-forward night (EST → EDT)', () => {
    // 2026-03-08: clocks go 02:00 EST → 03:00 EDT. 22:00 EST on the 7th → 08:00 EDT = 12:00Z.
    assert.equal(end(NY, '2026-03-08T03:00:00Z'), '2026-03-08T12:00:00.000Z');
    // During the skipped hour's night, 01:30 EST (06:30Z):
    assert.equal(end(NY, '2026-03-08T06:30:00Z'), '2026-03-08T12:00:00.000Z');
  });

  it('ends at local 08:00 across the fall-back night (EDT → EST)', () => {
    // 2026-11-01: clocks go 02:00 EDT → 01:00 EST. 22:00 EDT on Oct 31 → 08:00 EST = 13:00Z.
    assert.equal(end(NY, '2026-11-01T02:00:00Z'), '2026-11-01T13:00:00.000Z');
  });

  it('takes an end the clocks skip as the instant just past the gap, and a repeated one at its first showing', () => {
    const gap = { start: '01:00', end: '02:30', time_zone: 'America/New_York' };
    // 02:30 does not exist on 2026-03-08: the window ends at 03:30 EDT (07:30Z), the same distance past 02:00.
    assert.equal(end(gap, '2026-03-08T06:15:00Z'), '2026-03-08T07:30:00.000Z');
    const twice = { start: '00:30', end: '01:30', time_zone: 'America/New_York' };
    // 01:30 is shown twice on 2026-11-01: first at 01:30 EDT (05:30Z).
    assert.equal(end(twice, '2026-11-01T04:45:00Z'), '2026-11-01T05:30:00.000Z');
  });

  it('follows the southern hemisphere and half-hour zones', () => {
    const sydney = { start: '22:00', end: '07:00', time_zone: 'Australia/Sydney' };
    // 2026-04-05 03:00 AEDT → 02:00 AEST. 23:00 AEDT Apr 4 (12:00Z) → 07:00 AEST Apr 5 = 21:00Z.
    assert.equal(end(sydney, '2026-04-04T12:00:00Z'), '2026-04-04T21:00:00.000Z');
    const india = { start: '22:00', end: '07:00', time_zone: 'Asia/Kolkata' };
    assert.equal(end(india, '2026-11-24T17:00:00Z'), '2026-11-25T01:30:00.000Z'); // 22:30 IST → 07:00 IST
  });

  it('knows IANA zones and refuses others', () => {
    for (const zone of ['America/New_York', 'Europe/Berlin', 'UTC', 'Asia/Calcutta', 'America/Argentina/Buenos_Aires'])
      assert.ok(isTimeZone(zone), zone);
    for (const zone of ['Mars/Olympus', '+05:00', 'GMT+5 ', '', 'America/New York', 'x'.repeat(65)])
      assert.ok(!isTimeZone(zone), zone);
  });

  it('refuses bad times and zones with a 400 naming each part', () => {
    const fields = (value: typeof NY) => {
      try {
        requireQuietHours('quiet_hours', value);
        return [];
      } catch (error) {
        assert.ok(error instanceof ApiError);
        return (error.errors ?? []).map((e) => `${e.field}:${e.code}`);
      }
    };
    assert.deepEqual(fields({ start: '24:00', end: '8:00', time_zone: 'Nowhere/City' }), [
      'quiet_hours.start:invalid_format',
      'quiet_hours.end:invalid_format',
      'quiet_hours.time_zone:invalid_time_zone',
    ]);
    assert.deepEqual(fields({ start: '21:00', end: '21:00', time_zone: 'UTC' }), ['quiet_hours.end:invalid_value']);
    assert.deepEqual(fields({ start: '21:60', end: '08:00', time_zone: 'UTC' }), ['quiet_hours.start:invalid_format']);
    assert.deepEqual(fields(NY), []);
  });
});

describe('time zone names', () => {
  it('resolve to their canonical IANA spelling whatever the letter case; unknown names to null', () => {
    assert.equal(canonicalTimeZone('america/new_york'), 'America/New_York');
    assert.equal(canonicalTimeZone('AMERICA/NEW_YORK'), 'America/New_York');
    assert.equal(canonicalTimeZone('utc'), 'UTC');
    assert.equal(canonicalTimeZone('etc/gmt+5'), 'Etc/GMT+5');
    assert.equal(canonicalTimeZone('Mars/Olympus'), null);
    assert.equal(canonicalTimeZone('+05:00'), null);
    assert.equal(
      requireQuietHours('q', { start: '21:00', end: '08:00', time_zone: 'europe/PARIS' }).time_zone,
      'Europe/Paris',
    );
  });

  it('keep one cached entry per zone, however many spellings of it are used', () => {
    const before = zoneCacheSize();
    // Every letter-case spelling of a zone name: 2^14 of "America/Denver"'s 13 letters and more.
    const name = 'America/Denver';
    let used = 0;
    for (let mask = 0; mask < 4096; mask++) {
      const spelt = [...name].map((c, i) => ((mask >> i) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
      quietEnd({ start: '21:00', end: '08:00', time_zone: spelt }, new Date('2026-11-25T05:00:00Z'));
      used++;
    }
    assert.equal(used, 4096);
    const after = zoneCacheSize();
    assert.ok(after.formatters - before.formatters <= 1, `formatters grew by ${after.formatters - before.formatters}`);
    assert.ok(after.names <= 1024, `names ${after.names}`);
  });
});
