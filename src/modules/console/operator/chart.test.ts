// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { telemetryChart, telemetryTable, type TelemetryPoint } from './chart.ts';

const FROM = new Date('2026-11-21T00:00:00.000Z');
const TO = new Date('2026-11-22T00:00:00.000Z');
const at = (minutes: number, battery: number | null, signal: number | null, charging: boolean | null = false) => ({
  battery_pct: battery,
  charging,
  signal_dbm: signal,
  received_at: new Date(FROM.getTime() + minutes * 60_000).toISOString(),
});

describe('telemetry chart', () => {
  it('is null when the phone reported neither battery nor signal in the window', () => {
    assert.equal(telemetryChart('c', { from: FROM, to: TO, points: [] }), null);
    assert.equal(telemetryChart('c', { from: FROM, to: TO, points: [at(10, null, null, true)] }), null);
  });

  it('draws a line through reports at most 10 minutes apart and breaks it at a longer silence', () => {
    const points: TelemetryPoint[] = [
      at(0, 90, -70),
      at(5, 80, -75),
      at(10, 70, -80),
      at(120, 60, -90),
      at(125, 50, -95),
    ];
    const svg = String(telemetryChart('c', { from: FROM, to: TO, points }));
    assert.equal(svg.match(/<polyline class="line-battery"/g)?.length, 2);
    assert.equal(svg.match(/<polyline class="line-signal"/g)?.length, 2);
    // x: 60 + minutes / 1440 × 652; battery y: 14 + 120 - pct / 100 × 120.
    assert.match(svg, /<polyline class="line-battery" points="60\.0,26\.0 62\.3,38\.0 64\.5,50\.0"\/>/);
    assert.match(svg, /Battery from 50% to 90%, last 50%; signal from -95 dBm to -70 dBm, last -95 dBm\./);
  });

  it('draws a lone report as a dot, keeps out-of-range values inside the plot, and skips missing measures', () => {
    const svg = String(telemetryChart('c', { from: FROM, to: TO, points: [at(720, 100, -150), at(900, null, -20)] }));
    assert.match(svg, /<circle class="line-battery dot" cx="386\.0" cy="14\.0" r="3"\/>/);
    // -150 dBm is drawn at the axis floor (-130), -20 at its top (-40).
    assert.match(svg, /<circle class="line-signal dot" cx="386\.0" cy="290\.0" r="3"\/>/);
    assert.match(svg, /<circle class="line-signal dot" cx="467\.5" cy="170\.0" r="3"\/>/);
    assert.equal(svg.match(/line-battery/g)?.length, 1);
  });

  it('tabulates the last report of each hour, saying what was not reported', () => {
    const table = String(telemetryTable([at(5, 90, -70, true), at(50, 85, null, null), at(70, 80, -72)]));
    const rows = [...table.matchAll(/<tr>\s*<th scope="row">[\s\S]*?<\/tr>/g)].map((m) =>
      m[0].replace(/<[^>]+>/g, '|'),
    );
    assert.equal(rows.length, 2);
    assert.match(rows[0], /2026-11-21 00:00.*85%.*—.*—/s);
    assert.match(rows[1], /2026-11-21 01:00.*80%.*Not charging.*-72 dBm/s);
    assert.match(String(telemetryTable([])), /reported no battery or signal/);
  });
});
