import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, useApp } from '../../../test/harness.ts';
import { activeLine, claim, queued, type Line } from '../../../test/support/messages.ts';
import { eventually, StreamClient, streamUrl } from '../../../test/support/stream-client.ts';
import { createEndpoint, emitEvent } from '../../../test/support/webhooks.ts';
import { parseExposition, value } from '../../../test/support/metrics.ts';
import { topCells } from './registry.ts';

const METRICS_TOKEN = 'metrics-scrape-token-0123456789';

describe('GET /metrics', () => {
  let line: Line;
  let other: Line;

  const t = useApp({ env: { CELLGATE_METRICS_TOKEN: METRICS_TOKEN } });
  before(async () => {
    line = await activeLine(t);
    other = await activeLine(t);
  });

  async function scrape(headers: Record<string, string> = bearer(METRICS_TOKEN)) {
    const response = await t.app.inject({ url: '/metrics', headers });
    assert.equal(response.statusCode, 200, response.body);
    return { response, ...parseExposition(response.body) };
  }

  it('answers the Prometheus text format 0.0.4 with a metrics token, every line parsing', async () => {
    const { response, samples, types } = await scrape();
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.ok(samples.length > 0);
    assert.equal(types.get('cellgate_http_requests_total'), 'counter');
    assert.equal(types.get('cellgate_http_request_duration_seconds'), 'histogram');
    for (const gauge of [
      'cellgate_messages',
      'cellgate_queue_depth',
      'cellgate_queue_oldest_age_seconds',
      'cellgate_devices',
      'cellgate_webhook_deliveries',
      'cellgate_webhook_deliveries_last_hour',
      'cellgate_ledger_usd',
      'cellgate_event_stream_clients',
    ]) {
      assert.equal(types.get(gauge), 'gauge', gauge);
    }
  });

  it('answers an admin token too', async () => {
    await scrape(admin);
  });

  it('counts a request by its route pattern and status, not its raw URL', async () => {
    const url = `/v1/cells/${line.cell.id}`;
    const before =
      value((await scrape()).samples, 'cellgate_http_requests_total', {
        method: 'GET',
        route: '/v1/cells/:id',
        status: '200',
      }) ?? 0;
    assert.equal((await t.app.inject({ url, headers: line.org.headers })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/no/such/path' })).statusCode, 404);
    const { samples } = await scrape();
    assert.equal(
      value(samples, 'cellgate_http_requests_total', { method: 'GET', route: '/v1/cells/:id', status: '200' }),
      before + 1,
    );
    assert.equal(value(samples, 'cellgate_http_requests_total', { route: url }), undefined);
    assert.ok((value(samples, 'cellgate_http_requests_total', { route: 'unmatched', status: '404' }) ?? 0) >= 1);
    assert.ok(
      (value(samples, 'cellgate_http_request_duration_seconds_count', { route: '/v1/cells/:id', status: '200' }) ??
        0) >= 1,
    );
    assert.equal(
      value(samples, 'cellgate_http_request_duration_seconds_bucket', {
        route: '/v1/cells/:id',
        status: '200',
        le: '+Inf',
      }),
      before + 1,
    );
  });

  it('reports messages by status, queue depth and the oldest queued age per cell', async () => {
    await queued(t, line, { to: '+14155550101', body: 'first' });
    t.clock.advance(90_000);
    await queued(t, line, { to: '+14155550102', body: 'second' });
    await queued(t, other, { to: '+14155550103', body: 'third' });
    const { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_messages', { status: 'queued' }), 3);
    assert.equal(value(samples, 'cellgate_messages', { status: 'delivered' }), 0);
    assert.equal(value(samples, 'cellgate_queue_depth', { cell_id: line.cell.id }), 2);
    assert.equal(value(samples, 'cellgate_queue_depth', { cell_id: other.cell.id }), 1);
    assert.equal(value(samples, 'cellgate_queue_oldest_age_seconds', { cell_id: line.cell.id }), 90);
    assert.equal(value(samples, 'cellgate_queue_oldest_age_seconds', { cell_id: other.cell.id }), 0);

    // A device claiming its messages takes them off the queue.
    await claim(t, other);
    const after = (await scrape()).samples;
    assert.equal(value(after, 'cellgate_queue_depth', { cell_id: other.cell.id }), undefined);
    assert.equal(value(after, 'cellgate_messages', { status: 'sending' }), 1);
    assert.equal(value(after, 'cellgate_messages', { status: 'queued' }), 2);
  });

  it('reports devices by presence and assignment', async () => {
    const { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_devices', { assigned: 'true' }), 2);
    assert.equal(value(samples, 'cellgate_devices', { assigned: 'false' }), 0);
    // The device that claimed has been seen; its presence counts it online.
    assert.equal(value(samples, 'cellgate_devices', { state: 'online', assigned: 'true' }), 1);
    assert.equal(value(samples, 'cellgate_devices', { state: 'offline', assigned: 'true' }), 1);
  });

  it('reports ledger credits and debits by kind', async () => {
    const { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_ledger_usd', { kind: 'operator_credit', direction: 'credit' }), 2000);
    assert.ok((value(samples, 'cellgate_ledger_usd', { kind: 'message', direction: 'debit' }) ?? 0) > 0);
    assert.equal(value(samples, 'cellgate_ledger_usd', { kind: 'message', direction: 'credit' }), 0);
  });

  it('reports webhook deliveries by status, and event-stream clients', async () => {
    await createEndpoint(t, line.org.headers, 'http://127.0.0.1:9/hook', { event_types: ['cell.updated'] });
    const before = value((await scrape()).samples, 'cellgate_webhook_deliveries', { status: 'pending' }) ?? 0;
    await emitEvent(t, line.org.organizationId);
    const { samples } = await scrape();
    assert.equal(value(samples, 'cellgate_webhook_deliveries', { status: 'pending' }), before + 1);
    assert.equal(value(samples, 'cellgate_webhook_deliveries_last_hour', { status: 'pending' }), before + 1);
    assert.equal(value(samples, 'cellgate_webhook_deliveries', { status: 'failed' }), 0);
    assert.equal(value(samples, 'cellgate_event_stream_clients'), 0);
  });

  it('counts the event-stream clients connected to this process', async () => {
    const client = await StreamClient.ready(await streamUrl(t), { headers: line.org.headers });
    try {
      assert.equal(value((await scrape()).samples, 'cellgate_event_stream_clients'), 1);
    } finally {
      client.close();
    }
    await eventually(
      async () => value((await scrape()).samples, 'cellgate_event_stream_clients') === 0,
      'the client to be gone',
    );
  });
});

describe('topCells', () => {
  it('keeps the deepest cells and sums the rest as "other" with their oldest message', () => {
    const cells = [
      { cellId: 'cell_a', depth: 5, oldestCreatedAt: '2026-01-01T00:00:03.000Z' },
      { cellId: 'cell_b', depth: 3, oldestCreatedAt: '2026-01-01T00:00:02.000Z' },
      { cellId: 'cell_c', depth: 2, oldestCreatedAt: '2026-01-01T00:00:01.000Z' },
      { cellId: 'cell_d', depth: 1, oldestCreatedAt: '2026-01-01T00:00:05.000Z' },
    ];
    assert.deepEqual(topCells(cells, 2), [
      cells[0],
      cells[1],
      { cellId: 'other', depth: 3, oldestCreatedAt: '2026-01-01T00:00:01.000Z' },
    ]);
    assert.deepEqual(topCells(cells, 4), cells);
  });
});
