import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { admin, useApp, type TestApp } from '../../../../test/harness.ts';
import { addDevice } from '../../../../test/support/devices.ts';
import { activeLine, claim, queued, report, type Line } from '../../../../test/support/messages.ts';
import { LiveClient } from '../../../../test/support/console-conversations.ts';
import { setCookies } from '../../../../test/support/console.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { page as read } from '../../../../test/support/page.ts';

/** Outcomes of the phone as the devices module records them, each `ago` ms before now. */
async function outcomes(t: TestApp, deviceId: string, rows: Array<['sent' | 'failed', number]>) {
  let n = 0;
  for (const [outcome, ago] of rows) {
    n += 1;
    const at = new Date(t.clock.now().getTime() - ago).toISOString();
    await sql`insert into device_outcomes (device_id, message_id, outcome, error_code, segments, created_at)
      values (${deviceId}, ${`msg_seeded_${n}`}, ${outcome}, ${outcome === 'failed' ? 'RESULT_ERROR_GENERIC_FAILURE' : null}, 1, ${at})`.execute(
      t.database.db,
    );
  }
}

const heartbeat = (t: TestApp, headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers, payload });

describe('operator console: fleet and phones', () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let line: Line;

  before(async () => {
    line = await activeLine(t, { label: 'Rack A, slot 1' });
    await addDevice(t, { label: 'Spare' });
    operator = await signInOperator(t);
  });

  it('redirects /console/operator to the fleet, and a signed-out browser to the operator sign-in', async () => {
    const root = await t.app.inject({ url: '/console/operator', headers: operator.headers });
    assert.equal(root.statusCode, 303);
    assert.equal(root.headers.location, '/console/operator/fleet');
    const signedOut = await t.app.inject({ url: '/console/operator/fleet?filter=offline' });
    assert.equal(signedOut.statusCode, 303);
    assert.equal(
      signedOut.headers.location,
      '/console/operator/sign-in?next=%2Fconsole%2Foperator%2Ffleet%3Ffilter%3Doffline',
    );
    const form = await t.app.inject({ url: '/console/operator/sign-in' });
    assert.equal(form.statusCode, 200);
    const token = read(form).getByLabelText<HTMLInputElement>('Admin token');
    assert.deepEqual([token.name, token.type], ['admin_token', 'password']);
  });

  it('lists every phone with its cell, organization, presence, telemetry, queue and last 24 hours', async () => {
    assert.equal(
      (
        await heartbeat(t, line.device.headers, {
          battery_pct: 12,
          charging: false,
          signal_dbm: -87,
          app_version: '1.4.0',
        })
      ).statusCode,
      200,
    );
    const sent = await queued(t, line, { to: '+14155550101', body: 'first' });
    await claim(t, line);
    assert.equal((await report(t, line, sent.id, { event: 'sent' })).statusCode, 200);
    await queued(t, line, { to: '+14155550102', body: 'second' });
    // What the devices module counts as the phone's last 24 hours (its outcomes), one of them too old.
    await outcomes(t, line.device.id, [
      ['sent', 0],
      ['sent', 0],
      ['sent', 0],
      ['failed', 0],
      ['failed', 25 * 3_600_000],
    ]);
    const page = await getOperatorPage(t, '/console/operator/fleet', operator);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.headers['content-security-policy'] as string, /form-action 'self'/);
    const fleet = read(page);
    const row = fleet.row(/^All phones: /, `${line.device.phoneNumber} Rack A, slot 1`);
    assert.match(row['Cell and organization'], /^Support line /);
    assert.match(row.Presence, /^✓ Online /);
    assert.equal(row.Battery, '✕ 12% On battery', 'low and not charging');
    assert.equal(row.Signal, '-87 dBm');
    assert.equal(row.Queued, '1', 'one message waits for the phone');
    assert.match(row['Send rate'], /^20\/min /);
    assert.match(row['App and capabilities'], /^1\.4\.0 SMS, Delivery reports/);
    // The figures of the admin surface (the seeded outcomes, and the real ones once recorded).
    const view = (await t.app.inject({ url: `/v1/admin/devices/${line.device.id}`, headers: admin })).json();
    assert.ok(view.sent_24h >= 3 && view.failed_24h >= 1, JSON.stringify(view));
    assert.equal(row['Sent / failed (24 h)'], `${view.sent_24h} / ! ${view.failed_24h}`);
    assert.equal(row.Health, '✓ Healthy');
    fleet.getByText(/^2 phones in the rack, 1 online\./);
  });

  it('filters offline phones', async () => {
    const page = await getOperatorPage(t, '/console/operator/fleet?filter=offline', operator);
    assert.equal(page.statusCode, 200);
    const offline = read(page);
    assert.equal(offline.queryByRole('link', { name: line.device.phoneNumber }), null);
    offline.getByText('Spare');
    const filter = offline.getByRole('link', { name: 'Offline', current: 'page' });
    assert.equal(filter.getAttribute('href'), '/console/operator/fleet?filter=offline');
    assert.equal(offline.document.querySelector('[data-live-url]'), null, 'a filtered table is not live');
  });

  it("shows a phone's telemetry chart over 24 hours, its failures with their codes, and rotates its key once", async () => {
    // An hour of silence, then three reports five minutes apart: a dot, then a line.
    t.clock.advance(60 * 60_000);
    for (const [pct, dbm] of [
      [80, -70],
      [60, -75],
      [40, -95],
    ]) {
      t.clock.advance(5 * 60_000);
      assert.equal(
        (await heartbeat(t, line.device.headers, { battery_pct: pct, charging: false, signal_dbm: dbm })).statusCode,
        200,
      );
    }
    const failing = await queued(t, line, { to: '+14155550103', body: 'will fail' });
    await claim(t, line);
    assert.equal(
      (
        await report(t, line, failing.id, {
          event: 'failed',
          error_code: 'RESULT_ERROR_NO_SERVICE',
          error_message: 'No service',
        })
      ).statusCode,
      200,
    );
    const page = await getOperatorPage(t, `/console/operator/devices/${line.device.id}`, operator);
    assert.equal(page.statusCode, 200, page.body);
    const device = read(page);
    const chart = device.getByRole('img', {
      name: /^Battery \(percent, top\) and signal \(dBm, bottom\) over the last 24 hours .*Battery from 12% to 80%, last 40%/,
    });
    // The drawing: a line through the three reports, and a dot for the lone first one.
    const points = (selector: string) => chart.querySelector(selector)?.getAttribute('points')?.split(' ').length;
    assert.equal(points('polyline.line-battery'), 3);
    assert.equal(points('polyline.line-signal'), 3);
    assert.ok(chart.querySelector('circle.line-battery.dot'), 'the lone first report');
    const [failure] = device.rows("The phone's latest failed messages, newest first");
    assert.deepEqual([failure[0], failure[3], failure[4]], [failing.id, 'RESULT_ERROR_NO_SERVICE', 'No service']);
    const view = (await t.app.inject({ url: `/v1/admin/devices/${line.device.id}`, headers: admin })).json();
    assert.equal(device.definition('Last 24 hours'), `${view.sent_24h} sent, ${view.failed_24h} failed`);

    const rotated = await postOperatorForm(t, `/console/operator/devices/${line.device.id}/rotate-key`, operator, {
      reason: 'Phone was lost for a night',
    });
    assert.equal(rotated.statusCode, 303, rotated.body);
    assert.equal(rotated.headers.location, `/console/operator/devices/${line.device.id}`);
    const flash = setCookies(rotated)[0];
    assert.match(
      flash,
      new RegExp(
        `^cg_operator_device_key=[^;]+; Path=/console/operator/devices/${line.device.id}; Max-Age=300; HttpOnly; SameSite=Strict$`,
      ),
    );
    const shown = await t.app.inject({
      url: String(rotated.headers.location),
      headers: { cookie: `${operator.cookie}; ${flash.split(';')[0]}` },
    });
    assert.match(setCookies(shown)[0], /^cg_operator_device_key=; .*Max-Age=0/, 'read once, then cleared');
    const key = read(shown).valueOf('Device key for X-Phone-Key');
    assert.match(key, /^cg_dev_[A-Za-z0-9]+$/, 'the new key is shown');
    assert.equal((await heartbeat(t, line.device.headers, {})).statusCode, 401, 'the old key stopped');
    assert.equal((await heartbeat(t, { 'x-phone-key': key }, {})).statusCode, 200);
    line.device.headers = { 'x-phone-key': key };
    const again = await getOperatorPage(t, `/console/operator/devices/${line.device.id}`, operator);
    assert.doesNotMatch(again.body, /cg_dev_/, 'shown once');

    // The audit trail has the rotation: who, what, which phone, why.
    const trail = read(again).href('Operator actions on this phone');
    assert.equal(trail, `/console/operator/audit?target_id=${line.device.id}`);
    const audit = await getOperatorPage(t, trail, operator);
    assert.equal(audit.statusCode, 200, audit.body);
    const [entry] = read(audit).rows('Operator actions, newest first');
    assert.deepEqual(entry.slice(1, 5), [
      'CELLGATE_ADMIN_TOKEN adm_bootstrap',
      'device.rotate_key',
      `device ${line.device.id}`,
      'Phone was lost for a night',
    ]);
  });

  it('pauses and resumes a phone, releases a quarantined one, each with a reason, and filters paused and unhealthy phones', async () => {
    const phone = await addDevice(t, { label: 'Rack B, slot 1' });
    const base = `/console/operator/devices/${phone.id}`;
    const page = read(await getOperatorPage(t, base, operator));
    const actions = page.section('Actions');
    actions.getByRole('textbox', { name: 'Reason' });
    assert.equal(
      actions.getByRole<HTMLButtonElement>('button', { name: 'Pause phone' }).form?.getAttribute('action'),
      `${base}/pause`,
    );
    assert.equal(
      actions.queryByRole('button', { name: 'Release phone' }),
      null,
      'a healthy phone has nothing to release',
    );

    const paused = await postOperatorForm(t, `${base}/pause`, operator, { reason: 'Carrier maintenance tonight' });
    assert.equal(paused.statusCode, 303, paused.body);
    assert.equal(paused.headers.location, `${base}?notice=pause`);
    const after = read(await getOperatorPage(t, String(paused.headers.location), operator));
    after.getByText('Paused: the phone claims nothing until resumed.');
    // The phone never connected: no health reported yet, but the pause is shown.
    assert.equal(after.definition('Health'), 'Not reported yet • Paused Carrier maintenance tonight');
    const resume = after.getByRole<HTMLButtonElement>('button', { name: 'Resume phone' });
    assert.equal(resume.form?.getAttribute('action'), `${base}/resume`);
    const pausedList = read(await getOperatorPage(t, '/console/operator/fleet?filter=paused', operator));
    pausedList.getByRole('rowheader', { name: /Rack B, slot 1/ });
    const view = (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json();
    assert.deepEqual([view.paused, view.paused_reason], [true, 'Carrier maintenance tonight']);

    const resumed = await postOperatorForm(t, `${base}/resume`, operator, { reason: 'Maintenance over' });
    assert.equal(resumed.statusCode, 303, resumed.body);
    const empty = read(await getOperatorPage(t, '/console/operator/fleet?filter=paused', operator));
    empty.getByText('No phone is paused.');

    // The health state is the devices module's to decide; here it is set as a blocked SIM would leave it.
    await sql`update devices set health = 'quarantined', health_reason = ${'5 carrier failures in a row'} where id = ${phone.id}`.execute(
      t.database.db,
    );
    const unhealthy = read(await getOperatorPage(t, '/console/operator/fleet?filter=unhealthy', operator));
    const row = unhealthy.row(/^Unhealthy: /, /Rack B, slot 1/);
    assert.equal(row.Health, '✕ Quarantined 5 carrier failures in a row');
    const released = await postOperatorForm(t, `${base}/release`, operator, { reason: 'New SIM inserted' });
    assert.equal(released.statusCode, 303, released.body);
    assert.equal(
      (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin })).json().health,
      'healthy',
    );

    const audit = read(await getOperatorPage(t, `/console/operator/audit?target_id=${phone.id}`, operator));
    const entries = audit.rows('Operator actions, newest first');
    assert.deepEqual(
      entries.slice(0, 3).map((entry) => [entry[2], entry[4]]),
      [
        ['device.release', 'New SIM inserted'],
        ['device.resume', 'Maintenance over'],
        ['device.pause', 'Carrier maintenance tonight'],
      ],
    );
  });

  it('streams the fleet live: every row first, then a row whose phone reported something new', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const live = await LiveClient.ready(t, '/console/operator/fleet/live', operator.headers);
    const rows = live.frames.filter((f) => f.event === 'device-row');
    assert.equal(rows.length, (await t.app.inject({ url: '/v1/admin/devices', headers: admin })).json().devices.length);
    assert.equal((await heartbeat(t, line.device.headers, { battery_pct: 33, charging: true })).statusCode, 200);
    await t.services.operatorConsole.live?.tick();
    await live.until(
      () =>
        live.frames.some(
          (f) => f.event === 'device-row' && f.data.id === line.device.id && /33%/.test(String(f.data.row)),
        ),
      'the new battery level',
    );
    const before = live.frames.length;
    await t.services.operatorConsole.live?.tick();
    assert.equal(live.frames.length, before, 'nothing changed: nothing sent');
    live.close();
  });

  it('streams a phone joining and leaving the rack, and ends the stream of a session that signed out', async () => {
    const session = await signInOperator(t);
    const live = await LiveClient.ready(t, '/console/operator/fleet/live', session.headers);
    const phone = await addDevice(t, { label: 'Just unboxed' });
    await t.services.operatorConsole.live?.tick();
    await live.until(
      () => live.frames.some((f) => f.event === 'device-row' && f.data.id === phone.id),
      'the new phone',
    );
    // The count line above the table follows: one more phone, not online.
    const counts = live.frames.filter((f) => f.event === 'fleet-summary').map((f) => String(f.data.text));
    assert.equal(counts.length, 2, 'the count line first, then once changed');
    const [total, online] = (counts[0].match(/\d+/g) ?? []).map(Number);
    assert.equal(counts[1], `${total + 1} phones in the rack, ${online} online.`);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${phone.id}`, headers: admin })).statusCode,
      204,
    );
    await t.services.operatorConsole.live?.tick();
    await live.until(
      () => live.frames.some((f) => f.event === 'device-removed' && f.data.id === phone.id),
      'the removal',
    );
    assert.equal((await postOperatorForm(t, '/console/operator/sign-out', session)).statusCode, 303);
    await t.services.operatorConsole.live?.tick();
    await live.until(() => live.ended, 'the end of the stream');
    assert.ok(live.frames.some((f) => f.event === 'signed-out'));
    assert.equal((await LiveClient.open(t, '/console/operator/fleet/live', session.headers)).status, 303);
  });

  it('signs out: the session stops working', async () => {
    const session = await signInOperator(t);
    const out = await postOperatorForm(t, '/console/operator/sign-out', session);
    assert.equal(out.statusCode, 303);
    assert.match(String(out.headers['set-cookie']), /cg_operator=; Path=\/console\/operator; Max-Age=0/);
    const page = await getOperatorPage(t, '/console/operator/fleet', session);
    assert.equal(page.statusCode, 303);
  });

  it('the admin API still sees the same phones (the console reads, it does not keep its own copy)', async () => {
    const list = await t.app.inject({ url: '/v1/admin/devices', headers: admin });
    assert.equal(list.json().devices.length, 3);
  });
});
