// The OpenAPI 3.1 document SDKs are generated from (/openapi.yaml, /openapi.json), built from the
// same route schemas that validate requests; the reference at /docs (src/modules/docs) renders it.
//
// What each route states, and what follows from it here:
// - schema.operationId (camelCase, unique), summary, tags (declared in TAGS) and a description of
//   each success response (`Described`): checked when the route is added, so no route ships
//   without them (hidden routes, `schema.hide`, are exempt);
// - config.auth: the security requirement; with the route's inputs and config (scope,
//   idempotent, errors), its error responses, one per status, each naming the codes it carries;
// - a sub-schema with an `$id` is a named component (`#/components/schemas/<$id>`), referenced
//   wherever it is used. Name response schemas only: request schemas are compiled by one Ajv per
//   process (src/http/validation.ts), where two different schemas may not share an id.
// Event payloads are the top-level `webhooks` (EVENT_DOCS in src/modules/events/types.ts, and the
// operator's DEVICE_EVENT_DOCS in src/modules/devices/events.ts).
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import { ERROR_DOCS, ERRORS, type ErrorCode } from '../lib/errors.ts';
import { http } from '../lib/node-http.ts';
import { EVENT_DOCS, EVENT_TYPES, type EventType } from '../modules/events/types.ts';
import { DEVICE_EVENT_DOCS, DEVICE_EVENT_TYPES, type DeviceEventType } from '../modules/devices/events.ts';
import { VERSION } from '../modules/system/routes.ts';
import { introduction } from './openapi-intro.ts';
import { isPaidOperation, paymentInfo, serviceInfo } from './openapi-payments.ts';
import { Problem, Timestamp } from './schemas.ts';
import type { App } from './types.ts';

type Schema = Record<string, unknown>;

const SECURITY_BY_SURFACE = {
  public: [],
  agent: [{ bearer: [] }],
  admin: [{ admin: [] }],
  device: [{ phoneKey: [] }],
  // The SMSGate app's protocol (/mobile/v1) is not in the document: docs/device-protocol.md.
  smsgate: [],
} as const;

/** Every tag a route may carry, with its description; the document lists those in use. */
export const TAGS = [
  {
    name: 'Organizations',
    description:
      'Sign-up, email verification, the calling credential, API keys, and the agent status: what is wrong, in one call.',
  },
  {
    name: 'Cells',
    description: "Phone lines. A cell is a phone number carried by a physical Android phone in the operator's rack.",
  },
  {
    name: 'Messages',
    description: 'Send, reply to, read and cancel the SMS/MMS of a cell. Sends and replies take an Idempotency-Key.',
  },
  {
    name: 'Conversations',
    description: 'One conversation per cell and participant number, ordered by latest activity.',
  },
  { name: 'Pods', description: 'Sender pools: groups of cells, with their drafts, contact lists and cycle jobs.' },
  {
    name: 'Webhooks',
    description: 'Endpoints that receive events, signed per Standard Webhooks, and their deliveries.',
  },
  {
    name: 'Events',
    description:
      'Event payloads, POSTed to webhook endpoints and sent on the WebSocket stream (wss://{host}/v1/events/stream).',
  },
  { name: 'Billing', description: 'Tiers, prepaid balance, payments and payer wallets.' },
  { name: 'Usage', description: 'Billable usage records and summaries.' },
  { name: 'OAuth', description: 'OAuth 2.0 grants of the organization.' },
  {
    name: 'Admin',
    description: 'The operator surface (admin token): the phone inventory, organizations and the dev mail outbox.',
  },
  { name: 'Device', description: 'The device surface (X-Phone-Key): what the Android app on each phone calls.' },
  { name: 'System', description: 'Health of the process and its database.' },
];
const TAG_NAMES = new Set(TAGS.map((t) => t.name));

/** A documented operation and the error codes it can answer (errorCodesOf). */
export interface DocumentedOperation {
  method: string;
  url: string;
  operationId: string;
  summary: string;
  codes: ErrorCode[];
}

const OPERATIONS = new WeakMap<App, DocumentedOperation[]>();

/** The operations of the OpenAPI document of `app`, as routes were added (the error pages list them per code). */
export const documentedOperations = (app: App): readonly DocumentedOperation[] => OPERATIONS.get(app) ?? [];

const EXAMPLE_REQUEST_ID = 'req_01jdx3m6q9k8v2c4n7r5t0w1yz';

/** The codes a route can answer: from its surface, inputs and conventions, plus config.errors. */
export function errorCodesOf(route: Pick<RouteOptions, 'config' | 'schema'>): ErrorCode[] {
  const config = route.config ?? {};
  const schema = (route.schema ?? {}) as Schema;
  const codes = new Set<ErrorCode>();
  if (['body', 'querystring', 'params', 'headers'].some((part) => schema[part])) codes.add('invalid_request');
  if (config.auth && config.auth !== 'public') codes.add('unauthenticated');
  if (config.auth === 'agent' && !config.allowUnverified) {
    codes.add('organization_unverified');
    codes.add('organization_suspended');
  }
  if (
    (config.auth === 'agent' && config.scope) ||
    config.auth === 'admin' ||
    (config.auth === 'agent' && config.apiKeyOnly)
  )
    codes.add('forbidden');
  if (config.auth === 'agent' && config.scope) codes.add('insufficient_scope');
  if (schema.params) codes.add('not_found');
  if (schema.body) {
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  if (config.idempotent) {
    codes.add('idempotency_request_in_progress');
    codes.add('idempotency_key_reused');
  }
  if (config.auth && !config.unlimited) codes.add('rate_limited');
  if (isPaidOperation(schema.operationId)) codes.add('payment_required');
  for (const code of config.errors ?? []) codes.add(code);
  codes.add('internal_error');
  codes.add('unavailable');
  return [...codes];
}

const sentence = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}.`;
const PROBLEM_REF = { $ref: 'Problem#' };
/** A response of the Problem schema, without example. */
const problemOf = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: PROBLEM_REF } },
});

function problemResponse(status: number, codes: ErrorCode[], docsUrl: string): Schema {
  const [code] = codes;
  const example = {
    type: `${docsUrl}/errors/${code}`,
    title: ERRORS[code].title,
    status,
    detail: sentence(ERROR_DOCS[code].when.replace(/; .*/, '')),
    code,
    request_id: EXAMPLE_REQUEST_ID,
    ...(code === 'invalid_request'
      ? { errors: [{ field: 'display_name', code: 'required', message: 'display_name is required.' }] }
      : {}),
  };
  const headers =
    status === 429 || status === 503
      ? { 'Retry-After': { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying.' } }
      : status === 401
        ? { 'WWW-Authenticate': { type: 'string', description: 'The scheme to authenticate with: Bearer.' } }
        : undefined;
  return {
    description: `${http.STATUS_CODES[status]}. ${codes.map((c) => `\`${c}\`: ${ERROR_DOCS[c].when}.`).join(' ')}`,
    content: { 'application/problem+json': { schema: PROBLEM_REF, example } },
    ...(headers ? { headers } : {}),
  };
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSuccess = (status: string) => !/^[45]/.test(status);

/** The description of a success response: `Described`, or the root description of an unnamed schema. */
function responseDescription(response: unknown): string | undefined {
  if (!isObject(response)) return undefined;
  const described = response['x-response-description'];
  if (typeof described === 'string') return described;
  return typeof response.$id !== 'string' && typeof response.description === 'string'
    ? response.description
    : undefined;
}

/** What a documented route lacks, as phrases for the error message; empty when complete. */
export function documentationGaps(route: Pick<RouteOptions, 'config' | 'schema'>): string[] {
  const schema = (route.schema ?? {}) as Schema;
  const gaps: string[] = [];
  if (!route.config?.auth) gaps.push('config.auth (its surface)');
  if (typeof schema.operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(schema.operationId))
    gaps.push('schema.operationId in camelCase, e.g. listCells');
  if (typeof schema.summary !== 'string' || schema.summary === '') gaps.push('schema.summary');
  const tags = Array.isArray(schema.tags) ? (schema.tags as unknown[]) : [];
  if (tags.length === 0) gaps.push('schema.tags');
  for (const tag of tags)
    if (!TAG_NAMES.has(String(tag)))
      gaps.push(`tag "${String(tag)}" declared with a description in TAGS (src/http/openapi.ts)`);
  const success = Object.entries(isObject(schema.response) ? schema.response : {}).filter(([status]) =>
    isSuccess(status),
  );
  if (success.length === 0) gaps.push('a success response in schema.response');
  for (const [status, response] of success) {
    if (!responseDescription(response)) gaps.push(`a description of its ${status} response: Described(schema, '...')`);
  }
  const headers = isObject(schema.headers) && isObject(schema.headers.properties) ? schema.headers.properties : {};
  if (route.config?.idempotent && !headers['Idempotency-Key'])
    gaps.push('the Idempotency-Key header in schema.headers (IdempotencyKeyHeaders)');
  return gaps;
}

/** Data, not schemas: never walked for `$id`s. */
const DATA_KEYWORDS = new Set(['examples', 'example', 'default', 'enum', 'const']);

/** Every sub-schema of `node` that has an `$id`, as JSON text by name; two different schemas may not share a name. */
function namedTexts(node: unknown, texts = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(node)) {
    for (const item of node) namedTexts(item, texts);
    return texts;
  }
  if (!isObject(node)) return texts;
  const id = node.$id;
  if (typeof id === 'string' && id !== 'Problem') {
    const { 'x-response-description': _description, ...plain } = node;
    addNamed(texts, id, JSON.stringify(plain));
  }
  for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) namedTexts(value, texts);
  return texts;
}

function addNamed(texts: Map<string, string>, id: string, text: string): void {
  const known = texts.get(id);
  if (known === undefined) texts.set(id, text);
  else if (known !== text) throw new Error(`OpenAPI: two different schemas are named ${id}; give one another $id.`);
}

/**
 * namedTexts of each response schema object, once per process: route schemas are module constants
 * that every app of a process (a test file builds dozens) registers again.
 */
const responseNames = new WeakMap<object, Map<string, string>>();

/** Adds the named schemas of a route's responses to `texts` (by name, as JSON text). */
function collectNamed(responses: unknown, texts: Map<string, string>): void {
  if (!isObject(responses)) return;
  for (const response of Object.values(responses)) {
    if (!isObject(response)) continue;
    let names = responseNames.get(response);
    if (!names) responseNames.set(response, (names = namedTexts(response)));
    for (const [id, text] of names) addNamed(texts, id, text);
  }
}

const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present when this answer replays the first request made with the same Idempotency-Key.',
  },
};

/** The responses of an operation in the document: success ones by reference, errors by status. */
function documentedResponses(route: Pick<RouteOptions, 'config' | 'schema'>, docsUrl: string): Schema {
  const declared = ((route.schema as Schema | undefined)?.response ?? {}) as Schema;
  const replayed = route.config?.idempotent ? { headers: REPLAYED_HEADER } : {};
  const responses: Schema = {};
  for (const [status, response] of Object.entries(declared)) {
    if (!isSuccess(status) || !isObject(response)) continue;
    // A named root stays a reference; the response says what this answer is.
    responses[status] =
      typeof response.$id === 'string'
        ? { $ref: `#/components/schemas/${response.$id}`, description: responseDescription(response), ...replayed }
        : { ...response, ...replayed };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of [...byStatus.keys()].sort((a, b) => a - b))
    responses[status] = problemResponse(status, byStatus.get(status) ?? [], docsUrl);
  responses['4XX'] = problemOf('Another client error, e.g. `request_timeout` (408) or `headers_too_large` (431).');
  return responses;
}

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
const eventSchemaName = (type: EventType | DeviceEventType) => `${pascal(type)}Event`;
const isDeviceEvent = (type: string): type is DeviceEventType => type in DEVICE_EVENT_DOCS;

const EventEnvelope = Type.Object(
  {
    id: Type.String({
      description: 'evt_... id, also the webhook-id header: delivery is at least once, so dedupe on it.',
    }),
    type: Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES], description: 'The event type.' }),
    created_at: { ...Timestamp, description: 'When the change happened.' },
    organization_id: Type.String({ description: 'The organization the event belongs to.' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description: "The object's view at the change: the JSON the REST API shows for it.",
      },
    ),
  },
  {
    $id: 'EventEnvelope',
    description: 'The envelope of every event, on webhooks and on the stream.',
    examples: [
      {
        id: 'evt_01jdx3m6q9k8v2c4n7r5t0w1yz',
        type: 'cell.online',
        created_at: '2026-11-21T12:00:00.000Z',
        organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9',
        data: { id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6', status: 'active', online: true },
      },
    ],
  },
);

/** Each event type as a component: the envelope with its type and, where described, its data. */
function eventSchemas(): Record<string, Schema> {
  const schemas: Record<string, Schema> = { EventEnvelope: JSON.parse(JSON.stringify(EventEnvelope)) as Schema };
  for (const type of EVENT_TYPES) {
    const { summary, data } = EVENT_DOCS[type];
    schemas[eventSchemaName(type)] = {
      description: `${type}: ${summary}`,
      allOf: [
        { $ref: '#/components/schemas/EventEnvelope' },
        {
          type: 'object',
          required: ['type', 'data'],
          properties: {
            type: { type: 'string', const: type },
            data: data
              ? { $ref: `#/components/schemas/${data}` }
              : { type: 'object', additionalProperties: true, description: 'Not described yet.' },
          },
        },
      ],
    };
  }
  for (const type of DEVICE_EVENT_TYPES) {
    // Not the organizations' envelope with its organization_id: an operator event belongs to none.
    schemas[eventSchemaName(type)] = {
      type: 'object',
      description: `${type} (operator webhooks): ${DEVICE_EVENT_DOCS[type]}`,
      required: ['id', 'type', 'created_at', 'organization_id', 'data'],
      properties: {
        id: { type: 'string', description: 'evt_... id, also the webhook-id header: dedupe on it.' },
        type: { type: 'string', const: type },
        created_at: { ...Timestamp, description: 'When the change happened.' },
        organization_id: { type: 'null', description: 'Null: an operator event belongs to no organization.' },
        data: { $ref: '#/components/schemas/Device' },
      },
    };
  }
  return schemas;
}

const webhookHeader = (name: string, description: string, pattern?: string) => ({
  name,
  in: 'header' as const,
  required: true,
  description,
  schema: { type: 'string' as const, ...(pattern ? { pattern } : {}) },
});
const WEBHOOK_HEADERS = {
  WebhookId: webhookHeader('webhook-id', 'The event id (evt_...), the same on every attempt: dedupe on it.'),
  WebhookTimestamp: webhookHeader(
    'webhook-timestamp',
    'Unix time in seconds of this attempt; reject a delivery far from your clock.',
    '^[0-9]+$',
  ),
  WebhookSignature: webhookHeader(
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the whsec_ secret>. For 24 hours after a rotation, two space-separated signatures (new and previous secret).',
  ),
};

/** How Cellgate POSTs an event of `type` to an endpoint. */
function webhookOperation(type: EventType | DeviceEventType) {
  const description = isDeviceEvent(type)
    ? `${DEVICE_EVENT_DOCS[type]} POSTed to every enabled operator endpoint (/v1/admin/webhooks) whose event_types match, signed per Standard Webhooks, retried until a 2xx; never on an organization's stream.`
    : `${EVENT_DOCS[type].summary} POSTed to every enabled endpoint whose event_types match, signed per Standard Webhooks, retried until a 2xx; also sent on the stream.`;
  return {
    // hey-api names the payload type <OperationId>WebhookPayload.
    operationId: `${pascal(type)[0].toLowerCase()}${pascal(type).slice(1)}`,
    summary: type,
    description,
    tags: ['Events'],
    security: [],
    parameters: Object.keys(WEBHOOK_HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } } },
    },
    responses: {
      200: {
        description:
          'Any 2xx status acknowledges the delivery; other answers are retried with backoff (Retry-After is honoured).',
      },
      410: { description: 'Gone: Cellgate disables the endpoint (webhook.disabled) and stops delivering to it.' },
    },
  };
}

/** The top-level `webhooks`: one POST per event type. */
function webhooks() {
  const items: Record<string, { post: ReturnType<typeof webhookOperation> }> = {};
  for (const type of [...EVENT_TYPES, ...DEVICE_EVENT_TYPES]) items[type] = { post: webhookOperation(type) };
  return items;
}

export async function registerOpenApi(app: App, config: Config): Promise<void> {
  app.addSchema(Problem);
  // Named response schemas by name, as routes are added; copied into `schemas` when the app is
  // ready, before any document is generated. Copies: generating the document rewrites nested
  // named schemas into references in place, and the route schemas must stay as they are
  // (serializers of other apps compile them).
  const named = new Map(Object.entries(eventSchemas()).map(([id, schema]) => [id, JSON.stringify(schema)]));
  const schemas: Record<string, Schema> = {};
  app.addHook('onReady', async () => {
    for (const [id, text] of named) schemas[id] ??= JSON.parse(text) as Schema;
  });
  const options: FastifyDynamicSwaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cellgate API',
        version: VERSION,
        description: introduction(config.docsUrl),
        contact: { name: 'Cellgate API reference', url: config.docsUrl },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.baseUrl, description: 'This Cellgate service' }],
      tags: TAGS,
      components: {
        schemas,
        parameters: WEBHOOK_HEADERS,
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key (cg_live_...) or OAuth access token (cg_at_...).',
          },
          admin: { type: 'http', scheme: 'bearer', description: 'Admin token (cg_adm_...).' },
          phoneKey: { type: 'apiKey', in: 'header', name: 'X-Phone-Key', description: 'Device key (cg_dev_...).' },
        },
      },
      webhooks: webhooks(),
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // On a copy of the route schema, for the same reason as the named schemas'.
    transform: ({ schema, url, route }) =>
      !schema || (schema as Schema).hide
        ? { schema, url }
        : {
            schema: JSON.parse(
              JSON.stringify({ ...schema, response: documentedResponses(route, config.docsUrl) }),
            ) as Schema,
            url,
          },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      // Only the tags in use, in TAGS order; and payment discovery (mppx's OpenAPI reader): what an
      // operation may charge, on which rails (no webhook is paid).
      const used = new Set<string>();
      const { paths = {}, webhooks = {} } = openapiObject as { paths?: Schema; webhooks?: Schema };
      for (const item of [...Object.values(paths), ...Object.values(webhooks)]) {
        for (const operation of Object.values(item as Schema)) {
          if (!isObject(operation)) continue;
          if (Array.isArray(operation.tags)) operation.tags.forEach((t) => used.add(String(t)));
          const info = paymentInfo(config, operation.operationId);
          if (info) operation['x-payment-info'] = info;
        }
      }
      return {
        ...openapiObject,
        'x-service-info': serviceInfo(config),
        tags: TAGS.filter((tag) => used.has(tag.name)),
      };
    },
  };
  await app.register(swagger, options);

  const operationIds = new Set<string>();
  const operations: DocumentedOperation[] = [];
  OPERATIONS.set(app, operations);
  app.addHook('onRoute', (route) => {
    const surface = route.config?.auth;
    if (surface) {
      // Every route states its surface; the OpenAPI security and the error serialization follow from it.
      // Copies, never changes, the route's schema: route options are often module constants, and
      // another app in the same process (a test without the Problem schema) must not see these refs.
      const schema = { ...route.schema } as Schema;
      schema.security = SECURITY_BY_SURFACE[surface];
      // 4xx/5xx, not `default`: a default schema would also serialize undeclared 2xx bodies as Problem.
      const response = { ...(schema.response as Schema | undefined) };
      response['4xx'] ??= problemOf('Client error');
      response['5xx'] ??= problemOf('Server error');
      schema.response = response;
      route.schema = schema;
    }
    const schema = route.schema as Schema | undefined;
    if (schema?.hide || route.method === 'HEAD') return;
    const gaps = documentationGaps(route);
    const method = [route.method].flat().join(',');
    const name = `${method} ${route.url}`;
    if (gaps.length > 0) throw new Error(`OpenAPI: the route ${name} needs ${gaps.join('; ')}.`);
    const operationId = String(schema?.operationId);
    if (operationIds.has(operationId))
      throw new Error(`OpenAPI: the operationId ${operationId} of ${name} is taken by another route.`);
    operationIds.add(operationId);
    operations.push({
      method,
      url: route.url,
      operationId,
      summary: String(schema?.summary),
      codes: errorCodesOf(route),
    });
    collectNamed(schema?.response, named);
  });
}
