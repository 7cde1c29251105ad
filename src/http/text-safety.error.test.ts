// Text safety (validation.ts): a body is UTF-8 JSON whose top level is an object, and no string a
// request carries (body at any depth, query, path params) holds a C0 control character other than
// tab/LF/CR, DEL or an unpaired surrogate. PostgreSQL refuses NUL (it was a 500 there); SQLite
// stored it silently. Raw payloads go through app.inject as strings or buffers.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, bearer, expectProblem, uniqueEmail, useApp } from '../../test/harness.ts';
import { rejected, streamUrl } from '../../test/support/stream-client.ts';
import { addDevice } from '../../test/support/devices.ts';
import { activeLine, type Line } from '../../test/support/messages.ts';

type Org = Awaited<ReturnType<typeof activeOrganization>>;
type Problem = { errors?: { field: string; code: string; message: string }[] };

const JSON_TYPE = { 'content-type': 'application/json' };
/** The bytes of {"b":"<0xff>"}: not UTF-8. */
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x62, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);

const fields = (body: Problem) => (body.errors ?? []).map((e) => [e.field, e.code]);

describe('text safety: strings a request carries', () => {
  let org: Org;
  let line: Line;
  const t = useApp();
  before(async () => {
    org = await activeOrganization(t);
    line = await activeLine(t);
  });

  const raw = (
    method: 'POST' | 'PATCH',
    url: string,
    payload: string | Buffer,
    headers: Record<string, string> = org.headers,
  ) => t.app.inject({ method, url, headers: { ...headers, ...JSON_TYPE }, payload });
  const sendRaw = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    raw('POST', `/v1/cells/${line.cell.id}/messages/send`, payload, { ...line.org.headers, ...headers });
  const cellNames = async () =>
    (await t.app.inject({ url: '/v1/cells', headers: org.headers }))
      .json()
      .cells.map((c: { display_name: string }) => c.display_name);
  const messageCount = async () =>
    (await t.database.db.selectFrom('messages').select('id').where('cell_id', '=', line.cell.id).execute()).length;

  it('rejects NUL in display_name on POST /v1/cells (400 invalid_character) and writes nothing', async () => {
    const body = expectProblem(
      await raw('POST', '/v1/cells', '{"display_name":"nul\\u0000here"}'),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [['display_name', 'invalid_character']]);
    assert.match(body.errors[0].message, /display_name must not contain control characters/);
    assert.equal(body.detail, body.errors[0].message);
    assert.deepEqual(await cellNames(), []);
  });

  it('rejects the other C0 controls and DEL, raw or escaped, in display_name', async () => {
    for (const payload of [
      '{"display_name":"a\\u0001"}',
      '{"display_name":"a\\u001f"}',
      '{"display_name":"a\\u000b"}',
      '{"display_name":"a\\b"}',
      '{"display_name":"a\\f"}',
      '{"display_name":"a\u007f"}',
      '{"display_name":"a\\u007F"}',
    ]) {
      const body = expectProblem(await raw('POST', '/v1/cells', payload), 400, 'invalid_request');
      assert.deepEqual(fields(body), [['display_name', 'invalid_character']], payload);
    }
    assert.deepEqual(await cellNames(), []);
  });

  it('rejects NUL in display_name on PATCH /v1/cells/{id} and leaves the cell as it was', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: org.headers,
      payload: { display_name: 'Kept' },
    });
    assert.equal(created.statusCode, 201);
    const id = created.json().id;
    const body = expectProblem(
      await raw('PATCH', `/v1/cells/${id}`, '{"display_name":"bad\\u0000"}'),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [['display_name', 'invalid_character']]);
    assert.equal((await t.app.inject({ url: `/v1/cells/${id}`, headers: org.headers })).json().display_name, 'Kept');
    await t.app.inject({ method: 'DELETE', url: `/v1/cells/${id}`, headers: org.headers });
  });

  it('rejects NUL in a message body and stores no message', async () => {
    const body = expectProblem(await sendRaw('{"to":"+14155550123","body":"hi\\u0000there"}'), 400, 'invalid_request');
    assert.deepEqual(fields(body), [['body', 'invalid_character']]);
    assert.equal(await messageCount(), 0);
  });

  it('names every offending field, nested array items by their dotted path', async () => {
    const body = expectProblem(
      await sendRaw(
        '{"to":"+1415555\\u00000123","body":"x","media_urls":["https://example.com/a.jpg","https://example.com/\\u0000.jpg"]}',
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [
      ['to', 'invalid_character'],
      ['media_urls.1', 'invalid_character'],
    ]);
    assert.equal(body.detail, '2 fields contain forbidden characters.');
    const webhook = expectProblem(
      await raw(
        'POST',
        '/v1/webhooks',
        '{"client_id":"w1","url":"https://a.example.com/","event_types":["message.*","cell\\u0000.*"]}',
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(webhook), [['event_types.1', 'invalid_character']]);
    assert.equal(await messageCount(), 0);
  });

  it('names a field whose own name holds a control character, written escaped', async () => {
    const body = expectProblem(
      await raw('POST', '/v1/cells', '{"display_name":"ok","a\\u0000b":1}'),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(body), [['a\\u0000b', 'invalid_character']]);
  });

  it('rejects NUL in webhook url and client_id; the client_id stays free', async () => {
    const url = expectProblem(
      await raw('POST', '/v1/webhooks', '{"client_id":"w-nul","url":"https://a.example.com/\\u0000"}'),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(url), [['url', 'invalid_character']]);
    const clientId = expectProblem(
      await raw('POST', '/v1/webhooks', '{"client_id":"w-\\u0000","url":"https://a.example.com/"}'),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(clientId), [['client_id', 'invalid_character']]);
    const list = await t.app.inject({ url: '/v1/webhooks', headers: org.headers });
    assert.deepEqual(list.json().webhooks, []);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: org.headers,
          payload: { client_id: 'w-nul', url: 'https://a.example.com/' },
        })
      ).statusCode,
      201,
    );
  });

  it('rejects NUL in organization_name on the unauthenticated sign-up, sending no mail', async () => {
    const email = uniqueEmail();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/agent/sign-up',
      headers: JSON_TYPE,
      payload: JSON.stringify({ email, organization_name: 'Acme\u0000' }),
    });
    const body = expectProblem(response, 400, 'invalid_request');
    assert.deepEqual(fields(body), [['organization_name', 'invalid_character']]);
    assert.equal(t.mail.sent.filter((m) => m.to === email).length, 0);
  });

  it('rejects unpaired UTF-16 surrogates and accepts a proper pair', async () => {
    for (const name of ['\\ud800', 'x\\udbffy', '\\udc00x', '\\ude00\\ud83d']) {
      const body = expectProblem(await raw('POST', '/v1/cells', `{"display_name":"${name}"}`), 400, 'invalid_request');
      assert.deepEqual(fields(body), [['display_name', 'invalid_character']], name);
    }
    const body = expectProblem(await sendRaw('{"to":"+14155550123","body":"lone \\ud83d"}'), 400, 'invalid_request');
    assert.deepEqual(fields(body), [['body', 'invalid_character']]);
    const pair = await raw('POST', '/v1/cells', '{"display_name":"smile \\ud83d\\ude00"}');
    assert.equal(pair.statusCode, 201, pair.body);
    assert.equal(pair.json().display_name, 'smile 😀');
    await t.app.inject({ method: 'DELETE', url: `/v1/cells/${pair.json().id}`, headers: org.headers });
  });

  it('rejects a body that is not valid UTF-8 (no replacement characters)', async () => {
    const send = expectProblem(await sendRaw(INVALID_UTF8), 400, 'invalid_request');
    assert.deepEqual(fields(send), [['body', 'invalid_encoding']]);
    const cell = expectProblem(
      await raw(
        'POST',
        '/v1/cells',
        Buffer.from([...Buffer.from('{"display_name":"a'), 0xc3, 0x28, ...Buffer.from('"}')]),
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(cell), [['body', 'invalid_encoding']]);
    // An encoded surrogate (CESU-8) is not UTF-8 either.
    const cesu = expectProblem(
      await raw(
        'POST',
        '/v1/cells',
        Buffer.from([...Buffer.from('{"display_name":"a'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
      ),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(cesu), [['body', 'invalid_encoding']]);
    assert.equal(await messageCount(), 0);
    assert.deepEqual(await cellNames(), []);
  });

  it('still accepts tab, CR and LF (escaped, as JSON requires) and other Unicode in a message body', async () => {
    const text = 'line one\r\nline two\ttabbed — café 😀 \u0085\u00a0';
    const response = await sendRaw(JSON.stringify({ to: '+14155550123', body: text }));
    assert.equal(response.statusCode, 202, response.body);
    assert.equal(response.json().body, text);
    const stored = await t.database.db
      .selectFrom('messages')
      .select('body')
      .where('id', '=', response.json().id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.body, text);
    // The same, with every non-ASCII character \u-escaped (e.g. Python's json.dumps).
    const escaped = JSON.stringify({ to: '+14155550124', body: text }).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    const again = await sendRaw(escaped);
    assert.equal(again.statusCode, 202, again.body);
    assert.equal(again.json().body, text);
  });

  it('rejects a control character in a query parameter', async () => {
    const cellId = expectProblem(
      await t.app.inject({
        url: `/v1/conversations/between?cell_id=${line.cell.id}%00&participant=%2B14155550123`,
        headers: line.org.headers,
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(cellId), [['cell_id', 'invalid_character']]);
    const participant = expectProblem(
      await t.app.inject({
        url: `/v1/conversations/between?cell_id=${line.cell.id}&participant=%2B1415555%010123`,
        headers: line.org.headers,
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(participant), [['participant', 'invalid_character']]);
    const repeated = expectProblem(
      await t.app.inject({ url: '/v1/cells?cursor=a&cursor=b%7F', headers: org.headers }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(repeated), [['cursor', 'invalid_character']]);
  });

  it('rejects a control character in a path parameter', async () => {
    for (const url of ['/v1/cells/%00abc', '/v1/cells/cell_%01', `/v1/cells/${line.cell.id}%1B/messages`]) {
      const body = expectProblem(await t.app.inject({ url, headers: line.org.headers }), 400, 'invalid_request');
      assert.equal(body.errors.length, 1, url);
      assert.equal(body.errors[0].code, 'invalid_character', url);
    }
    const patch = expectProblem(await raw('PATCH', '/v1/cells/%00', '{"display_name":"x"}'), 400, 'invalid_request');
    assert.deepEqual(fields(patch), [['id', 'invalid_character']]);
  });

  it('authenticates before looking at the body or the query', async () => {
    expectProblem(
      await raw('POST', '/v1/cells', '{"display_name":"\\u0000"}', bearer('cg_live_nope')),
      401,
      'unauthenticated',
    );
    expectProblem(
      await t.app.inject({ url: '/v1/cells/%00', headers: bearer('cg_live_nope') }),
      401,
      'unauthenticated',
    );
  });

  it('does not store a rejected send under its Idempotency-Key', async () => {
    const key = { 'idempotency-key': 'text-safety-1' };
    expectProblem(await sendRaw('{"to":"+14155550125","body":"\\u0000"}', key), 400, 'invalid_request');
    const good = await sendRaw('{"to":"+14155550125","body":"fine"}', key);
    assert.equal(good.statusCode, 202, good.body);
    assert.equal(good.headers['idempotent-replayed'], undefined);
  });
});

describe('text safety: the body must be a JSON object', () => {
  let org: Org;
  let device: Awaited<ReturnType<typeof addDevice>>;
  const t = useApp();
  before(async () => {
    org = await activeOrganization(t);
    device = await addDevice(t);
  });

  const keyCount = async () => (await t.app.inject({ url: '/v1/auth/keys', headers: org.headers })).json().keys.length;

  it('rejects null, an array, a number, a string and a boolean, where the body is optional too', async () => {
    const keys = await keyCount();
    for (const payload of ['null', ' null ', '[]', '[{}]', '5', '"x"', 'true']) {
      for (const [url, headers] of [
        ['/v1/auth/keys', org.headers],
        ['/v1/device/heartbeat', device.headers],
        ['/v1/cells', org.headers],
      ] as const) {
        const response = await t.app.inject({ method: 'POST', url, headers: { ...headers, ...JSON_TYPE }, payload });
        const body = expectProblem(response, 400, 'invalid_request');
        assert.deepEqual(fields(body), [['body', 'invalid_type']], `${url} ${payload}`);
      }
    }
    assert.equal(await keyCount(), keys);
  });

  it('keeps an absent body optional, and takes an empty JSON body for none', async () => {
    const keys = await keyCount();
    const created = await t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: org.headers });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().name, null);
    assert.equal(await keyCount(), keys + 1);
    const heartbeat = await t.app.inject({ method: 'POST', url: '/v1/device/heartbeat', headers: device.headers });
    assert.equal(heartbeat.statusCode, 200, heartbeat.body);
    for (const payload of ['{}', '']) {
      const labelled = await t.app.inject({
        method: 'POST',
        url: '/v1/device/heartbeat',
        headers: { ...device.headers, ...JSON_TYPE },
        payload,
      });
      assert.equal(labelled.statusCode, 200, `${JSON.stringify(payload)}: ${labelled.body}`);
    }
    const keyFromEmpty = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/keys',
      headers: { ...org.headers, ...JSON_TYPE },
      payload: '',
    });
    assert.equal(keyFromEmpty.statusCode, 201, keyFromEmpty.body);
    // A route that takes no body (DELETE, cancel, rotate-secret) with the JSON label and nothing.
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/v1/auth/keys/${keyFromEmpty.json().id}`,
      headers: { ...org.headers, ...JSON_TYPE },
      payload: '',
    });
    assert.equal(revoked.statusCode, 204, revoked.body);
    // A route that needs a body answers an empty one as it answers none: 400, the body is missing.
    const webhook = expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: { ...org.headers, ...JSON_TYPE },
        payload: '',
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(fields(webhook), [['body', 'invalid_type']]);
  });

  it('keeps malformed JSON, prototype keys, 413 and 415 as they were', async () => {
    const post = (payload: string, headers: Record<string, string> = JSON_TYPE) =>
      t.app.inject({ method: 'POST', url: '/v1/auth/keys', headers: { ...org.headers, ...headers }, payload });
    assert.equal(expectProblem(await post('{"name":'), 400, 'invalid_request').detail, 'The body is not valid JSON.');
    for (const payload of [
      '{"__proto__":{"admin":true}}',
      '{"name":"x","\\u005f_proto__":{}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ]) {
      const body = expectProblem(await post(payload), 400, 'invalid_request');
      assert.equal(body.errors[0].code, 'unknown_field', payload);
    }
    assert.equal(({} as Record<string, unknown>).admin, undefined);
    expectProblem(await post(JSON.stringify({ name: 'x'.repeat(300 * 1024) })), 413, 'payload_too_large');
    expectProblem(await post('{}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    const charset = await post('{"name":"utf8 \u00e9"}', { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(charset.statusCode, 201, charset.body);
    assert.equal(charset.json().name, 'utf8 é');
  });

  it('leaves the documentation routes alone', async () => {
    const ui = await t.app.inject({ url: '/docs' });
    assert.equal(ui.statusCode, 200);
    assert.match(String(ui.headers['content-type']), /text\/html/);
    assert.equal((await t.app.inject({ url: '/docs/json' })).statusCode, 200);
  });

  it('leaves the WebSocket stream its own close codes for a bad query', async () => {
    const url = await streamUrl(t);
    const closed = await rejected(`${url}?since=%00`, { headers: org.headers });
    assert.equal(closed.code, 4400);
    assert.match(closed.reason, /since must be an event id/);
  });
});
