// Bad heartbeat capabilities: 400 invalid_request naming the field, and nothing stored.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectProblem, startApp, type TestApp } from '../../../test/harness.ts';
import { activeLine, type Line } from '../../../test/support/messages.ts';

describe('heartbeat capabilities: bad input', () => {
  let t: TestApp;
  let line: Line;
  before(async () => {
    t = await startApp();
    line = await activeLine(t);
  });
  after(() => t.close());

  for (const [label, capabilities, field, code] of [
    ['a string for a boolean', { delivery_reports: 'false' }, 'capabilities.delivery_reports', 'invalid_type'],
    ['a number for a boolean', { mms_send: 0 }, 'capabilities.mms_send', 'invalid_type'],
    ['null for a boolean', { mms_receive: null }, 'capabilities.mms_receive', 'invalid_type'],
    ['an unknown capability', { mms_send: false, voice_calls: true }, 'capabilities.voice_calls', 'unknown_field'],
    ['a list instead of an object', ['delivery_reports'], 'capabilities', 'invalid_type'],
    ['a boolean instead of an object', false, 'capabilities', 'invalid_type'],
  ] as const) {
    it(`rejects ${label} with ${code} on ${field}, storing nothing`, async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/device/heartbeat',
        headers: line.device.headers,
        payload: { battery_pct: 12, capabilities },
      });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.deepEqual(
        body.errors.map((e: { field: string; code: string }) => [e.field, e.code]),
        [[field, code]],
      );
      const cell = (await t.app.inject({ url: `/v1/cells/${line.cell.id}`, headers: line.org.headers })).json();
      assert.deepEqual(cell.capabilities, { delivery_reports: true, mms_send: true, mms_receive: true });
    });
  }
});
