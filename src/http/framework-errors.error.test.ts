// Errors raised before a route runs (router, Node HTTP parser) are problem+json with a code, a
// request id and the X-Request-Id header, and none of them reveals a route before the credential check.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, expectProblem, useApp } from '../../test/harness.ts';
import { listeningPort, parseResponses, rawExchange, type RawResponse } from '../../test/raw-http.ts';

function assertRawProblem(response: RawResponse | undefined, status: number, code: string) {
  assert.ok(response, 'a response');
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(response.headers.connection, 'close');
  const body = JSON.parse(response.body);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'request_id', 'status', 'title', 'type']);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(body.type, `https://docs.cellgate.test/errors/${code}`);
  assert.match(body.request_id, /^req_[0-9a-z]{26}$/);
  assert.equal(response.headers['x-request-id'], body.request_id);
}

describe('framework errors', () => {
  const t = useApp({ env: { CELLGATE_DOCS_URL: 'https://docs.cellgate.test' } });

  for (const url of ['/v1/cells/%ZZ', '/v1/no-such-route/%ZZ']) {
    it(`malformed percent-encoding (${url}) is a 400 invalid_request problem with the request id`, async () => {
      const response = await t.app.inject({ url, headers: { 'x-request-id': 'probe-bad-url' } });
      const body = expectProblem(response, 400, 'invalid_request');
      assert.equal(body.request_id, 'probe-bad-url');
      assert.equal(response.headers['x-request-id'], 'probe-bad-url');
      assert.equal(body.type, 'https://docs.cellgate.test/errors/invalid_request');
    });
  }

  for (const length of [101, 10_000]) {
    it(`a ${length}-character path parameter without a credential is a 401, not a 414`, async () => {
      const response = await t.app.inject({ url: `/v1/cells/${'a'.repeat(length)}` });
      const body = expectProblem(response, 401, 'unauthenticated');
      assert.equal(response.headers['x-request-id'], body.request_id);
    });
  }

  it('a 101-character path parameter with a credential reaches the route (a problem, not a 414)', async () => {
    const org = await activeOrganization(t);
    const response = await t.app.inject({ url: `/v1/cells/cell_${'a'.repeat(97)}`, headers: org.headers });
    assert.ok([400, 404].includes(response.statusCode), response.body);
    const body = expectProblem(
      response,
      response.statusCode,
      response.statusCode === 400 ? 'invalid_request' : 'not_found',
    );
    assert.equal(response.headers['x-request-id'], body.request_id);
  });
});

describe('HTTP parser errors', () => {
  let port: number;
  const t = useApp({ env: { CELLGATE_DOCS_URL: 'https://docs.cellgate.test' } });
  before(async () => {
    port = await listeningPort(t);
  });

  it('a control character in a header value is a 400 invalid_request problem, then the connection closes', async () => {
    const exchange = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: cellgate.test\r\nX-Note: a\x01b\r\n\r\n');
    assert.ok(exchange.closed);
    const responses = parseResponses(exchange.received);
    assert.equal(responses.length, 1, exchange.received);
    assertRawProblem(responses[0], 400, 'invalid_request');
  });

  it('headers over 16 KiB are a 431 headers_too_large problem, then the connection closes', async () => {
    const exchange = await rawExchange(
      port,
      `GET /health HTTP/1.1\r\nHost: cellgate.test\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    assert.ok(exchange.closed);
    assertRawProblem(parseResponses(exchange.received)[0], 431, 'headers_too_large');
  });

  it('a URL over 16 KiB is a 431 headers_too_large problem', async () => {
    const exchange = await rawExchange(
      port,
      `GET /v1/cells/${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: cellgate.test\r\n\r\n`,
    );
    assert.ok(exchange.closed);
    assertRawProblem(parseResponses(exchange.received)[0], 431, 'headers_too_large');
  });

  it('a request line that is not HTTP is a 400 invalid_request problem', async () => {
    const exchange = await rawExchange(port, 'HELLO\r\n\r\n');
    assert.ok(exchange.closed);
    assertRawProblem(parseResponses(exchange.received)[0], 400, 'invalid_request');
  });

  it('a long path parameter over a real connection answers 401 before anything about the route', async () => {
    const exchange = await rawExchange(
      port,
      `GET /v1/cells/${'a'.repeat(2000)} HTTP/1.1\r\nHost: cellgate.test\r\nConnection: close\r\n\r\n`,
    );
    const [response] = parseResponses(exchange.received);
    assert.equal(response?.status, 401, exchange.received.slice(0, 300));
    assert.equal(JSON.parse(response.body).code, 'unauthenticated');
    assert.equal(response.headers['x-request-id'], JSON.parse(response.body).request_id);
  });
});
