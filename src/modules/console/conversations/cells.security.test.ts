import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp, TEST_GRANT, verifiedOrganization } from '../../../../test/harness.ts';
import { createCell } from '../../../../test/support/cells.ts';
import { addDevice } from '../../../../test/support/devices.ts';
import { inbound } from '../../../../test/support/messages.ts';
import { signInConsole } from '../../../../test/support/console.ts';
import {
  apiMessages,
  consoleLine,
  getPage,
  listening,
  LiveClient,
  liveUrlOf,
  postSend,
  threadUrl,
  type ConsoleLine,
} from '../../../../test/support/console-conversations.ts';

const PARTICIPANT = '+14155550199';

describe('console cells: errors and security', () => {
  const t = useApp();
  let line: ConsoleLine;
  let other: ConsoleLine;
  before(async () => {
    await listening(t);
    line = await consoleLine(t);
    other = await consoleLine(t);
  });

  it('sends a signed-out visitor of every page to sign in, and back', async () => {
    for (const url of ['/console/cells', `/console/cells/${line.cell.id}`, threadUrl(line.cell.id, PARTICIPANT)]) {
      const response = await getPage(t, url);
      assert.equal(response.statusCode, 303, url);
      assert.equal(response.headers.location, `/console/sign-in?next=${encodeURIComponent(url)}`);
    }
  });

  it('refuses a send without a session, without the CSRF token, with a wrong one, or from another site; nothing is sent', async () => {
    const fields = { to: PARTICIPANT, body: 'Should not go' };
    const signedOut = await t.app.inject({
      method: 'POST',
      url: `/console/cells/${line.cell.id}/messages`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...fields, csrf_token: line.signIn.csrf }).toString(),
    });
    assert.equal(signedOut.statusCode, 401);
    assert.match(signedOut.body, /Your session has ended/);
    const noToken = await postSend(t, line, { ...fields, csrf_token: '' });
    assert.equal(noToken.statusCode, 403);
    assert.match(noToken.body, /The form is out of date/);
    assert.equal((await postSend(t, line, { ...fields, csrf_token: other.signIn.csrf })).statusCode, 403);
    assert.equal((await postSend(t, line, fields, { origin: 'https://evil.example' })).statusCode, 403);
    assert.deepEqual(await apiMessages(t, line, '?direction=outbound'), []);
  });

  it("answers another organization's cell with the same 404 page as an unknown one, for every page and form", async () => {
    for (const url of [
      `/console/cells/${other.cell.id}`,
      threadUrl(other.cell.id, PARTICIPANT),
      '/console/cells/cell_unknown',
    ]) {
      const response = await getPage(t, url, line.signIn);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.body, /<h1>Cell not found<\/h1>/);
      assert.doesNotMatch(response.body, /Support line/);
    }
    const send = await postSend(t, { ...line, cell: other.cell }, { to: PARTICIPANT, body: 'Into their cell' });
    assert.equal(send.statusCode, 404);
    assert.deepEqual(await apiMessages(t, other, '?direction=outbound'), []);
  });

  it('answers a forged list cursor with a 400 page', async () => {
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'So the thread has a page' })).statusCode, 201);
    for (const url of [
      '/console/cells?cursor=forged',
      `/console/cells/${line.cell.id}?cursor=forged`,
      `${threadUrl(line.cell.id, PARTICIPANT)}?cursor=forged`,
    ]) {
      const response = await getPage(t, url, line.signIn);
      assert.equal(response.statusCode, 400, url);
      assert.match(response.body, /This list link is not valid/);
    }
  });

  it('answers a thread address that is not a phone number with 404', async () => {
    const response = await getPage(t, `/console/cells/${line.cell.id}/conversations/not-a-number`, line.signIn);
    assert.equal(response.statusCode, 404);
    assert.match(response.body, /Conversation not found/);
  });

  it('refuses a bad number, an empty text and a too-long text with the error tied to its field, keeping what was typed', async () => {
    const badNumber = await postSend(t, line, { to: '555-0199', body: 'Kept <text>' });
    assert.equal(badNumber.statusCode, 400);
    assert.match(badNumber.body, /<title>Error: Support line — Cellgate Console<\/title>/);
    assert.match(
      badNumber.body,
      /<input id="to" name="to" type="tel" value="555-0199" required aria-describedby="to-hint to-error" aria-invalid="true" autofocus/,
    );
    assert.match(
      badNumber.body,
      /<p class="field-error" id="to-error">Enter a valid phone number in international form/,
    );
    assert.match(badNumber.body, /<textarea id="body" name="body"[^>]*>Kept &#60;text&#62;<\/textarea>/);

    const empty = await postSend(t, line, { to: PARTICIPANT, body: '  \r\n ' });
    assert.equal(empty.statusCode, 400);
    assert.match(
      empty.body,
      /<textarea id="body" name="body" rows="4" maxlength="1600" required aria-describedby="body-hint body-error" aria-invalid="true" autofocus>/,
    );
    assert.match(empty.body, /<p class="field-error" id="body-error">Enter a message.<\/p>/);

    const tooLong = await postSend(t, line, { to: PARTICIPANT, body: 'x'.repeat(1601) });
    assert.equal(tooLong.statusCode, 400);
    assert.match(
      tooLong.body,
      /<p class="field-error" id="body-error">The message is 1601 characters long; the limit is 1600.<\/p>/,
    );

    const missing = await postSend(t, line, {});
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /id="to-error">Enter the number to text/);
    assert.match(missing.body, /id="body-error">Enter a message/);

    const reply = await t.app.inject({
      method: 'POST',
      url: `${threadUrl(line.cell.id, PARTICIPANT)}/messages`,
      headers: { ...line.signIn.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf_token: line.signIn.csrf, body: '' }).toString(),
    });
    assert.equal(reply.statusCode, 400);
    assert.match(reply.body, /<title>Error: \+1 415 555 0199 — Support line/);
    assert.match(reply.body, /id="body-error">Enter a message/);
    assert.deepEqual(await apiMessages(t, line, '?direction=outbound'), []);
  });

  it('shows a recipient who texted STOP as an error of the number', async () => {
    assert.equal((await inbound(t, line, { from: '+14155550177', body: 'STOP' })).statusCode, 201);
    const response = await postSend(t, line, { to: '+14155550177', body: 'Hello?' });
    assert.equal(response.statusCode, 409);
    assert.match(response.body, /<p class="field-error" id="to-error">\+14155550177 texted STOP to this cell/);
  });

  it('shows a 402 with a link to Billing when the balance cannot pay, and sends nothing', async () => {
    // A paid tier but no prepaid credit: the cell exists, the text cannot be paid for.
    const org = await verifiedOrganization(t);
    const granted = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/organizations/${org.organizationId}/grant`,
      headers: admin,
      payload: TEST_GRANT,
    });
    assert.equal(granted.statusCode, 200, granted.body);
    await addDevice(t);
    const cell = await createCell(t, org.headers);
    assert.equal(cell.status, 'active');
    const broke = { ...line, org, cell, signIn: await signInConsole(t, org.email) };
    const response = await postSend(t, broke, { to: PARTICIPANT, body: 'Costs a cent' });
    assert.equal(response.statusCode, 402);
    assert.match(
      response.body,
      /<div class="notice error" role="alert"><p>Billing refused this send: The prepaid balance cannot cover this message/,
    );
    // The link to Billing carries this page with the typed text: the card page leads back to it.
    const link = response.body.match(/<a href="([^"]+)">Top up in Billing<\/a>, then send again/)?.[1];
    assert.ok(link, response.body);
    const billing = new URL(link.replaceAll('&#38;', '&'), 'http://cellgate.test');
    assert.equal(billing.pathname, '/console/billing');
    const back = billing.searchParams.get('return') ?? '';
    assert.match(back, new RegExp(`^/console/cells/${cell.id}\\?`));
    assert.match(response.body, /<textarea[^>]*>Costs a cent<\/textarea>/);
    assert.deepEqual(await apiMessages(t, broke), []);
    const again = await t.app.inject({ url: back, headers: broke.signIn.headers });
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /<textarea[^>]*>Costs a cent<\/textarea>/, 'what was typed is kept');
    assert.match(again.body, new RegExp(`value="${PARTICIPANT.replace('+', '\\+')}"`));
  });

  it('says why a cell without a phone cannot send', async () => {
    const waiting = await createCell(t, line.org.headers, 'Waiting');
    assert.equal(waiting.status, 'provisioning');
    const response = await postSend(t, { ...line, cell: waiting }, { to: PARTICIPANT, body: 'Hello' });
    assert.equal(response.statusCode, 409);
    assert.match(
      response.body,
      /role="alert"><p>This cell cannot send now: The cell is provisioning; it must be active./,
    );
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${waiting.id}`, headers: line.org.headers })).statusCode,
      200,
    );
  });

  it('escapes what a texter sends', async () => {
    assert.equal(
      (await inbound(t, line, { from: '+14155550166', body: '<script>alert(1)</script><img src=x onerror=alert(2)>' }))
        .statusCode,
      201,
    );
    for (const url of [`/console/cells/${line.cell.id}`, threadUrl(line.cell.id, '+14155550166')]) {
      const page = await getPage(t, url, line.signIn);
      assert.doesNotMatch(page.body, /<script>alert|<img src=x/);
      assert.match(page.body, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    }
  });

  it("refuses the live stream without a session (401), for another organization's cell (404), and with a bad position (400)", async () => {
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    const url = liveUrlOf(page.body);
    const signedOut = await t.app.inject({ method: 'GET', url });
    assert.equal(signedOut.statusCode, 401);
    assert.equal(signedOut.headers['cache-control'], 'no-store');
    const forged = await t.app.inject({ method: 'GET', url, headers: { cookie: 'cg_console=cgs_forged' } });
    assert.equal(forged.statusCode, 401);
    const theirs = await t.app.inject({
      method: 'GET',
      url: url.replace(line.cell.id, other.cell.id),
      headers: line.signIn.headers,
    });
    assert.equal(theirs.statusCode, 404);
    const bad = await t.app.inject({
      method: 'GET',
      url: `/console/cells/${line.cell.id}/live?after=-1`,
      headers: line.signIn.headers,
    });
    assert.equal(bad.statusCode, 400);
  });

  it("refuses the cells list's live stream without a session (401) and with a bad position (400)", async () => {
    const url = liveUrlOf((await getPage(t, '/console/cells', line.signIn)).body);
    assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 401);
    assert.equal(
      (await t.app.inject({ method: 'GET', url, headers: { cookie: 'cg_console=cgs_forged' } })).statusCode,
      401,
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/console/cells/live?after=x', headers: line.signIn.headers }))
        .statusCode,
      400,
    );
  });

  it("never streams another organization's cells on the cells list", async () => {
    const live = await LiveClient.ready(
      t,
      liveUrlOf((await getPage(t, '/console/cells', line.signIn)).body),
      line.signIn.headers,
    );
    // Their cell changes (a rename), then ours.
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/v1/cells/${other.cell.id}`,
          headers: other.org.headers,
          payload: { display_name: 'Theirs renamed' },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/v1/cells/${line.cell.id}`,
          headers: line.org.headers,
          payload: { display_name: 'Ours renamed' },
        })
      ).statusCode,
      200,
    );
    await live.until(
      () => live.frames.some((f) => f.event === 'cell-row' && String(f.data.row).includes('Ours renamed')),
      'our own rename',
    );
    const seen = JSON.stringify(live.frames);
    assert.ok(!seen.includes('Theirs renamed') && !seen.includes(other.cell.id));
    live.close();
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/v1/cells/${line.cell.id}`,
          headers: line.org.headers,
          payload: { display_name: 'Support line' },
        })
      ).statusCode,
      200,
    );
  });

  it("never streams another organization's events, nor another cell's", async () => {
    const second = await createCell(t, line.org.headers, 'Second line');
    const page = await getPage(t, `/console/cells/${line.cell.id}`, line.signIn);
    const live = await LiveClient.ready(t, liveUrlOf(page.body), line.signIn.headers);
    // Events of their cell, and of our other cell (a rename is its cell.updated), then one of ours.
    assert.equal((await inbound(t, other, { from: PARTICIPANT, body: 'For the other organization' })).statusCode, 201);
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/v1/cells/${second.id}`,
          headers: line.org.headers,
          payload: { display_name: 'Renamed' },
        })
      ).statusCode,
      200,
    );
    assert.equal((await inbound(t, line, { from: PARTICIPANT, body: 'For us' })).statusCode, 201);
    await live.messageUpdate((f) => String(f.data.thread).includes('For us'), 'our own message');
    const seen = JSON.stringify(live.frames);
    assert.doesNotMatch(seen, /For the other organization|Renamed/);
    assert.ok(!seen.includes(other.cell.id) && !seen.includes(second.id));
    live.close();
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/v1/cells/${second.id}`, headers: line.org.headers })).statusCode,
      200,
    );
  });
});
