// Shared steps of the webhook tests: create an endpoint, cause an event, read the deliveries log,
// verify a received request with the standardwebhooks package at the test clock's time.
import assert from 'node:assert/strict';
import { it, mock } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { EventType } from '../../src/modules/events/types.ts';
import { expectProblem, type TestApp } from '../harness.ts';
import type { ReceivedRequest } from './webhook-receiver.ts';

/** A refused endpoint body: what is wrong with it, the body, and the field and code of its one error. */
export type BadEndpointBody = [name: string, payload: unknown, field: string, code: string];

/**
 * Bodies an endpoint create refuses whoever owns the endpoint (an organization or the operator):
 * the same schema checks client_id, url and enabled for both. Event types and unknown fields differ
 * per owner; each suite adds its own.
 */
export const BAD_ENDPOINT_BODIES: BadEndpointBody[] = [
  ['a missing client_id', { url: 'https://a.example.com/' }, 'client_id', 'required'],
  ['an empty client_id', { client_id: '', url: 'https://a.example.com/' }, 'client_id', 'too_short'],
  [
    'a client_id over 255 characters',
    { client_id: 'x'.repeat(256), url: 'https://a.example.com/' },
    'client_id',
    'too_long',
  ],
  ['a missing url', { client_id: 'e1' }, 'url', 'required'],
  ['a url that is not a string', { client_id: 'e1', url: 42 }, 'url', 'invalid_type'],
  [
    'a url over 2048 characters',
    { client_id: 'e1', url: `https://a.example.com/${'x'.repeat(2040)}` },
    'url',
    'too_long',
  ],
  ['a malformed url', { client_id: 'e1', url: 'not a url' }, 'url', 'invalid_url'],
  ['a relative url', { client_id: 'e1', url: '/hooks' }, 'url', 'invalid_url'],
  ['a non-http url', { client_id: 'e1', url: 'ftp://a.example.com/' }, 'url', 'invalid_url'],
  ['a url with credentials', { client_id: 'e1', url: 'https://user:pw@a.example.com/' }, 'url', 'invalid_url'],
  [
    'an empty event type list',
    { client_id: 'e1', url: 'https://a.example.com/', event_types: [] },
    'event_types',
    'too_few',
  ],
  [
    'event types that are not a list',
    { client_id: 'e1', url: 'https://a.example.com/', event_types: 'message.*' },
    'event_types',
    'invalid_type',
  ],
  [
    'enabled that is not a boolean',
    { client_id: 'e1', url: 'https://a.example.com/', enabled: 'yes' },
    'enabled',
    'invalid_type',
  ],
];

/** A body naming `eventType`, which this owner's endpoints do not take. */
export const badEventType = (name: string, eventType: string): BadEndpointBody => [
  name,
  { client_id: 'e1', url: 'https://a.example.com/', event_types: [eventType] },
  'event_types.0',
  'invalid_value',
];

/** A body with a field endpoints do not have. */
export const unknownField = (field: string, value: unknown): BadEndpointBody => [
  'an unknown field',
  { client_id: 'e1', url: 'https://a.example.com/', [field]: value },
  field,
  'unknown_field',
];

/** The one field error of a 400 invalid_request body, as [field, code]. */
export function onlyFieldError(body: { errors?: { field: string; code: string }[] }): [string, string] {
  assert.equal(body.errors?.length, 1, JSON.stringify(body));
  const [error] = body.errors;
  return [error.field, error.code];
}

/** A test per refused body: `create` answers 400 invalid_request naming the body's field and code. */
export function itRefusesEach(
  bodies: BadEndpointBody[],
  create: (payload: unknown) => Promise<Parameters<typeof expectProblem>[0]>,
): void {
  for (const [name, payload, field, code] of bodies) {
    it(`rejects ${name} (400 ${code})`, async () => {
      assert.deepEqual(onlyFieldError(expectProblem(await create(payload), 400, 'invalid_request')), [field, code]);
    });
  }
}

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
