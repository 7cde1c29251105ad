// Shared steps of the webhook tests: create an endpoint, cause an event, read the deliveries log,
// verify a received request with the standardwebhooks package at the test clock's time.
import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { EventType } from '../../src/modules/events/types.ts';
import type { TestApp } from '../harness.ts';
import type { ReceivedRequest } from './webhook-receiver.ts';

export interface Endpoint {
  id: string;
  secret: string;
}

let clientIds = 0;

export async function createEndpoint(
  t: TestApp,
  headers: Record<string, string>,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<Endpoint> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers,
    payload: { client_id: `hook-${++clientIds}`, url, ...extra },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** Records an event the way every module does (the outbox fans it out to the endpoints). */
export function emitEvent(
  t: TestApp,
  organizationId: string,
  type: EventType = 'cell.updated',
  data: Record<string, unknown> = { n: 1 },
) {
  return t.services.events.emit(t.database.db, { organizationId, type, data });
}

export async function deliveriesOf(t: TestApp, headers: Record<string, string>, webhookId: string, query = '') {
  const response = await t.app.inject({ url: `/v1/webhooks/${webhookId}/deliveries${query}`, headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { deliveries: DeliveryView[]; next_cursor: string | null };
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  attempt_history: { attempted_at: string; status_code: number | null; latency_ms: number; error: string | null }[];
}

/** Verifies with standardwebhooks, whose timestamp tolerance is read against the test clock. */
export function verify(t: TestApp, secret: string, request: ReceivedRequest): unknown {
  const now = mock.method(Date, 'now', () => t.clock.now().getTime());
  try {
    return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  } finally {
    now.mock.restore();
  }
}
