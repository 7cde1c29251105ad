// The credential is checked before the body (contract §2, §13): on every device route, /mobile/v1
// (the SMSGate app) and /v1/device (the native agents), a request without a valid credential is
// 401 whatever its body, so a caller without one learns nothing of the body's schema. Only an
// authenticated caller gets 400 for a bad body. The webhook receiver's credential is its
// signature: missing, malformed or stale headers are 401 before the body is read, and a wrong
// signature is 401 right after the body is parsed, before its shape is checked.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from '../../../test/harness.ts';
import { enroll, mobilePhone, webhook } from '../../../test/support/mobile.ts';
import { addDevice } from '../../../test/support/devices.ts';

/** Bodies no route takes: not JSON, the wrong shape, the wrong type, and over the 64 KiB limit. */
const BAD_BODIES: Array<[string, { payload: string; 'content-type': string }]> = [
  ['not JSON', { payload: '{"name":', 'content-type': 'application/json' }],
  ['the wrong shape', { payload: '{"simCards":[{"slotIndex":"one"}],"state":7}', 'content-type': 'application/json' }],
  ['a list where an object goes', { payload: '[1,2,3]', 'content-type': 'application/json' }],
  ['not JSON at all', { payload: 'name=x', 'content-type': 'application/x-www-form-urlencoded' }],
  ['over the limit', { payload: JSON.stringify({ name: 'x'.repeat(70_000) }), 'content-type': 'application/json' }],
];

describe('the credential before the body on device routes', () => {
  const t = useApp();

  const send = (
    method: 'POST' | 'PATCH',
    url: string,
    headers: Record<string, string>,
    body: (typeof BAD_BODIES)[0][1],
  ) =>
    t.app.inject({
      method,
      url,
      headers: { ...headers, 'content-type': body['content-type'] },
      payload: body.payload,
    });

  it('POST /mobile/v1/device: no, unknown, spent or wrong enrollment with any bad body is 401; a valid one gets the 400', async () => {
    const spent = await enroll(t);
    await t.app.inject({
      method: 'POST',
      url: '/mobile/v1/device',
      headers: { authorization: `Bearer ${spent.token}` },
      payload: { name: 'Pixel', simCards: [] },
    });
    const credentials: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer cg_enr_00000000000000000000000000000000' },
      { authorization: `Bearer ${spent.token}` },
      { authorization: `Code ${spent.code}` },
      { authorization: 'Code 000000' },
      { authorization: 'Basic dXNlcjpwYXNz' },
    ];
    for (const headers of credentials) {
      for (const [name, body] of BAD_BODIES) {
        const response = await send('POST', '/mobile/v1/device', headers, body);
        assert.equal(response.statusCode, 401, `${JSON.stringify(headers)}, ${name}: ${response.body}`);
        assert.equal(response.json().code, 'unauthenticated');
      }
    }
    const valid = await enroll(t);
    const bad = await send('POST', '/mobile/v1/device', { authorization: `Bearer ${valid.token}` }, BAD_BODIES[1][1]);
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().code, 'invalid_request');
    const big = await send('POST', '/mobile/v1/device', { authorization: `Code ${valid.code}` }, BAD_BODIES[4][1]);
    assert.equal(big.statusCode, 413, big.body);
    // The check spent nothing: the enrollment still signs a phone in.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/mobile/v1/device',
      headers: { authorization: `Bearer ${valid.token}` },
      payload: { name: 'Pixel', simCards: [] },
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('PATCH /mobile/v1/device and /mobile/v1/message, GET /mobile/v1/message: a bad token with a bad body or query is 401', async () => {
    const phone = await mobilePhone(t);
    const tokens: Record<string, string>[] = [{}, { authorization: 'Bearer cg_dev_00000000000000000000000000000000' }];
    for (const headers of tokens) {
      for (const url of ['/mobile/v1/device', '/mobile/v1/message']) {
        for (const [name, body] of BAD_BODIES) {
          const response = await send('PATCH', url, headers, body);
          assert.equal(response.statusCode, 401, `PATCH ${url}, ${name}: ${response.body}`);
        }
      }
      const query = await t.app.inject({ url: '/mobile/v1/message?order=sideways&x=1', headers });
      assert.equal(query.statusCode, 401, query.body);
    }
    for (const url of ['/mobile/v1/device', '/mobile/v1/message']) {
      const bad = await send('PATCH', url, phone.headers, BAD_BODIES[2][1]);
      assert.equal(bad.statusCode, 400, `${url}: ${bad.body}`);
      const wrong = await send('PATCH', url, phone.headers, BAD_BODIES[1][1]);
      assert.equal(wrong.statusCode, 400, `${url}: ${wrong.body}`);
    }
    const query = await t.app.inject({ url: '/mobile/v1/message?order=sideways', headers: phone.headers });
    assert.equal(query.statusCode, 400, query.body);
  });

  it('POST /mobile/v1/webhooks/events: unsigned, stale, malformed or wrongly signed with any bad body is 401; a signed bad body is 400', async () => {
    const phone = await mobilePhone(t);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const headerCases: Array<[string, Record<string, string>]> = [
      ['no signature headers', {}],
      ['a stale timestamp', { 'x-timestamp': String(now - 3600), 'x-signature': 'a'.repeat(64) }],
      ['a malformed signature', { 'x-timestamp': String(now), 'x-signature': 'not-hex' }],
      ['a wrong signature', { 'x-timestamp': String(now), 'x-signature': 'a'.repeat(64) }],
    ];
    const shapeless = JSON.stringify({ deviceId: phone.id, event: 7 });
    const bodies = [
      ...BAD_BODIES,
      ['a body naming the phone', { payload: shapeless, 'content-type': 'application/json' }] as const,
    ];
    for (const [name, headers] of headerCases) {
      for (const [bodyName, body] of bodies) {
        const response = await send('POST', '/mobile/v1/webhooks/events', headers, body);
        // A well-formed signature can only be checked against the body: one too big to read is 413.
        if (name === 'a wrong signature' && bodyName === 'over the limit') {
          assert.equal(response.statusCode, 413, response.body);
          continue;
        }
        assert.equal(response.statusCode, 401, `${name}, ${bodyName}: ${response.body}`);
        assert.equal(response.json().code, 'unauthenticated');
      }
    }
    // No body at all, with or without a content type.
    for (const headers of [headerCases[3][1], { ...headerCases[3][1], 'content-type': 'application/json' }]) {
      const empty = await t.app.inject({ method: 'POST', url: '/mobile/v1/webhooks/events', headers });
      assert.equal(empty.statusCode, 401, empty.body);
    }
    // Signed by the phone it names, the body's shape is checked: 400.
    const signed = await webhook(t, phone, 'sms:received', {}, { raw: shapeless });
    assert.equal(signed.statusCode, 400, signed.body);
    assert.equal(signed.json().code, 'invalid_request');
  });

  it('/v1/device routes: a missing or unknown device key with a bad body or query is 401; a valid key gets the 400', async () => {
    const device = await addDevice(t);
    const routes = ['/v1/device/heartbeat', '/v1/device/messages/inbound', '/v1/device/messages/msg_unknown/events'];
    const keys: Record<string, string>[] = [
      {},
      { 'x-phone-key': 'cg_dev_00000000000000000000000000000000' },
      { 'x-phone-key': 'nope' },
    ];
    for (const headers of keys) {
      for (const url of routes) {
        for (const [name, body] of BAD_BODIES) {
          const response = await send('POST', url, headers, body);
          assert.equal(response.statusCode, 401, `POST ${url}, ${name}: ${response.body}`);
          assert.equal(response.json().code, 'unauthenticated');
        }
      }
      for (const url of ['/v1/device/messages/outbound?limit=zero&wait=99&x=1', '/v1/device/config?x=1']) {
        const response = await t.app.inject({ url, headers });
        assert.equal(response.statusCode, 401, `GET ${url}: ${response.body}`);
      }
    }
    for (const url of routes) {
      const bad = await send('POST', url, device.headers, BAD_BODIES[2][1]);
      assert.equal(bad.statusCode, 400, `${url}: ${bad.body}`);
    }
    const query = await t.app.inject({ url: '/v1/device/messages/outbound?limit=zero', headers: device.headers });
    assert.equal(query.statusCode, 400, query.body);
  });
});
