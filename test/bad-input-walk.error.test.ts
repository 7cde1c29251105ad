// Every documented operation with bad input of every kind at once: unknown, over-long and hostile
// path ids, bodies of the wrong JSON type, broken JSON, wrong field types, other content types, bad
// query values. Each answer is a 4xx problem+json (or a 2xx where the input happens to be good),
// never a 5xx, and the service answers /health afterwards.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, admin, useApp } from './harness.ts';
import { addDevice } from './support/devices.ts';

const IDS = [
  'cell_01jdx1f2g3h4j5k6m7n8p9q0r1',
  'x'.repeat(70),
  '%00',
  '..%2F..',
  '%C3%BC',
  '1e309',
  '-1',
  "'%3B drop table cells%3B--",
];
const WRONG_FIELDS = {
  to: ['x'],
  body: { a: 1 },
  limit: -5,
  amount_usd: '1e309',
  email: 123,
  name: null,
  url: 'http://[::1]/',
  send_at: '2026-13-45',
  quiet_hours: { start: '25:99' },
  numbers: [1, 2],
  event_types: 'message.*',
  cell_ids: [null],
  client_id: 'y'.repeat(300),
};
const BODIES: [string, string][] = [
  ['{}', 'application/json'],
  ['[]', 'application/json'],
  ['"x"', 'application/json'],
  ['null', 'application/json'],
  ['{"a":1}', 'application/json'],
  ['{bad json', 'application/json'],
  [JSON.stringify(WRONG_FIELDS), 'application/json'],
  ['a=1&b=2', 'application/x-www-form-urlencoded'],
  ['\u0000\u0001', 'text/plain'],
];
const BAD_QUERY = '?limit=abc&cursor=%FF&wait=9999&since=x';

const t = useApp();

it('answers bad input on every operation with a 4xx problem, never a 5xx', async () => {
  const org = await activeOrganization(t);
  const phone = (await addDevice(t)).headers;
  const doc = (await t.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const problems: string[] = [];
  let requests = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
      const headers = path.startsWith('/v1/admin') ? admin : path.startsWith('/v1/device') ? phone : org.headers;
      const bodies = method === 'get' || method === 'delete' ? [[undefined, undefined] as const] : BODIES;
      for (const id of IDS) {
        const url = path.replace(/\{[^}]+\}/g, id) + (method === 'get' ? BAD_QUERY : '');
        for (const [payload, type] of bodies) {
          requests += 1;
          const response = await t.app.inject({
            method: method.toUpperCase() as 'GET',
            url,
            headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
            payload,
          });
          const contentType = String(response.headers['content-type'] ?? '');
          const said = `${method.toUpperCase()} ${url} ${payload?.slice(0, 40) ?? ''} -> ${response.statusCode}`;
          if (response.statusCode >= 500) problems.push(`${said} ${response.body.slice(0, 200)}`);
          else if (
            response.statusCode >= 400 &&
            !contentType.startsWith('application/problem+json') &&
            !contentType.startsWith('text/html') // the HTML pages (checkout) answer a page
          )
            problems.push(`${said} ${contentType}`);
        }
      }
    }
  }
  // And with no credential, a forged one and a phone key where an organization's is expected.
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
      for (const headers of [{}, { authorization: 'Bearer cg_live_forged0000000000000000000000' }, phone]) {
        requests += 1;
        const url = path.replace(/\{[^}]+\}/g, IDS[0]);
        const response = await t.app.inject({ method: method.toUpperCase() as 'GET', url, headers });
        if (response.statusCode >= 500) problems.push(`${method.toUpperCase()} ${url} -> ${response.statusCode}`);
      }
    }
  }
  assert.ok(requests > 1_000, `${requests} requests`);
  assert.deepEqual(problems, []);
  assert.equal((await t.app.inject({ url: '/health' })).statusCode, 200);
});
