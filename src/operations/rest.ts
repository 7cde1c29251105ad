// The REST binder: a route and its OpenAPI entry from an operation. The operation gives the
// operationId, summary, description, scope, organization rule, idempotency, errors and the
// schemas of the request: the URL's `:names` are path parameters (the input's fields of those
// names), the other fields are the body of a POST, PATCH or PUT and the query string of a GET or
// DELETE. A binding restates no field; it only says where one travels when that is not the rule
// (a path name that is not the field's, a POST's query parameter). The handler is one call to invoke.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import { adminOf, agentOf } from '../http/auth.ts';
import { problemBody } from '../http/errors.ts';
import type { App } from '../http/types.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { ANONYMOUS, type AnyOperation, type Caller } from './operation.ts';
import type { Invoker } from './invoke.ts';

/**
 * `schema.headers` of a route that takes an Idempotency-Key (an operation's): validated with
 * the request and documented as its header parameter, 1-255 printable ASCII characters, optional.
 */
export const IdempotencyKeyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]*$',
      description:
        'Makes retries safe: the same key with the same request within 24 hours replays the first answer (Idempotent-Replayed: true); with a different request it is 422. 1-255 printable ASCII characters.',
      examples: ['order-4711-confirmation'],
    }),
  ),
});

/** Method, path and canonical body: what makes two requests "the same". */
export function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

export interface RestBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  /** Default: the operation's name in camelCase. */
  operationId?: string;
  tags: string[];
  /** Default: the operation's. */
  summary?: string;
  description?: string;
  /** The input field of a path parameter whose name in the URL is not the field's (`{ id: 'pod_id' }`). */
  path?: Record<string, string>;
  /** Fields of a POST, PATCH or PUT that travel in the query string, not the body (create_cell's tier). */
  query?: readonly string[];
  /**
   * A field REST takes in another type than the operation (the service interface's amount_usd is a
   * number in a query string; the operation reads its text): its schema here, its value from `input`.
   */
  as?: Record<string, TSchema>;
  /** The operation's input from the request's fields (path, query and body merged), where it is not those fields (a value as written). */
  input?: (fields: Record<string, unknown>, request: FastifyRequest) => Record<string, unknown>;
  /** The success response (Described), of the operation's status. */
  response: TSchema;
  /** Other success answers, by status (a create repeated with its client_id: 200); `answer` picks the status. */
  responses?: Record<number, TSchema>;
  preValidation?: RouteOptions['preValidation'];
  /** The extra per-IP bucket of an abuse-prone public route (sign-up). */
  ipLimit?: 'sign_up';
  /**
   * Runs on a fresh success before it is sent (not on a replay): headers of this transport only.
   * A failure is logged and the success still answered (the operation is already committed).
   */
  after?: (request: FastifyRequest, reply: FastifyReply, value: never) => Promise<void>;
  /** Left out of the OpenAPI document (test probes). */
  hide?: boolean;
  /**
   * The body of an answer, when it is not the operation's value, whether it is a replay (a
   * client_id's earlier job) and its status, when not the operation's (one of `responses`).
   */
  answer?: (value: never) => { body: unknown; replayed?: boolean; status?: number };
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The request's schemas of a binding, derived from the operation's input. */
interface RequestSchemas {
  params?: TObject;
  querystring?: TObject;
  body?: TObject;
}

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** The keywords of an object schema that are its fields, not options the body keeps. */
const FIELD_KEYWORDS = new Set(['type', 'properties', 'required', 'examples']);

/**
 * The part of `schema` that holds `names`: their properties and required-ness, and for a body
 * (`options`) the schema's own options (strictness, description) and its examples cut to `names`.
 */
function part(schema: TObject, names: readonly string[], options: boolean): TObject | undefined {
  if (names.length === 0) return undefined;
  const properties = Object.fromEntries(names.map((name) => [name, schema.properties[name]!]));
  if (!options) return Type.Object(properties);
  const kept = Object.fromEntries(Object.entries(schema).filter(([key]) => !FIELD_KEYWORDS.has(key)));
  const { examples } = schema as { examples?: object[] };
  const cut = (example: object) => Object.fromEntries(Object.entries(example).filter(([key]) => names.includes(key)));
  return Type.Object(properties, { ...kept, ...(examples ? { examples: examples.map(cut) } : {}) });
}

/** Where each field of the operation's input travels, as schemas; a path name the input lacks is a start-up error. */
export function requestSchemas(
  op: AnyOperation,
  binding: Pick<RestBinding, 'method' | 'url' | 'path' | 'query' | 'as'>,
): RequestSchemas {
  const input = binding.as
    ? ({ ...op.input, properties: { ...op.input.properties, ...binding.as } } as TObject)
    : op.input;
  const urlNames = [...binding.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const fieldOf = (name: string) => binding.path?.[name] ?? name;
  for (const name of [...urlNames.map(fieldOf), ...(binding.query ?? [])])
    if (!(name in input.properties))
      throw new Error(`${op.name} (${binding.method} ${binding.url}): its input has no field ${name}`);
  const params = urlNames.length
    ? Type.Object(Object.fromEntries(urlNames.map((name) => [name, input.properties[fieldOf(name)]!])))
    : undefined;
  const inPath = new Set(urlNames.map(fieldOf));
  const rest = Object.keys(input.properties).filter((name) => !inPath.has(name));
  if (!BODY_METHODS.has(binding.method)) return { params, querystring: part(input, rest, false) };
  const query = binding.query ?? [];
  const without = (names: string[], taken: readonly string[]) => names.filter((name) => !taken.includes(name));
  return {
    params,
    querystring: part(input, query, false),
    body: part(input, without(rest, query), true),
  };
}

/** The request's fields under the input's names (a path parameter under its field's name). */
function fieldsOf(request: FastifyRequest, path: Record<string, string> | undefined): Record<string, unknown> {
  const params = request.params as Record<string, unknown>;
  const named = path
    ? Object.fromEntries(Object.entries(params).map(([key, value]) => [path[key] ?? key, value]))
    : params;
  return { ...named, ...(request.query as object), ...(request.body as object) };
}

export interface RestBinder {
  bind(app: App, op: AnyOperation, binding: RestBinding): void;
}

export function restBinder(invoker: Invoker, options: { baseUrl: string; docsUrl: string }): RestBinder {
  return {
    bind(app, op, binding) {
      const status = op.status ?? 200;
      const idempotent = op.idempotency !== 'none';
      // An operator operation is an admin route (an admin token), a public one takes no credential;
      // the others take an agent's credential.
      const operator = op.principals?.includes('operator') ?? false;
      const open = op.principals?.includes('public') ?? false;
      const callerOf = (request: FastifyRequest): Caller =>
        operator
          ? { credentialType: 'admin_token', tokenId: adminOf(request).tokenId }
          : open
            ? ANONYMOUS
            : agentOf(request);
      const schemas = requestSchemas(op, binding);
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const fields = fieldsOf(request, binding.path);
        const input = binding.input ? binding.input(fields, request) : fields;
        const key = idempotent ? request.headers['idempotency-key'] : undefined;
        // Aborted when the client hangs up: a long-poll (the codes' wait) stops waiting.
        const gone = new AbortController();
        const hangUp = () => gone.abort();
        reply.raw.once('close', hangUp);
        if (request.raw.socket?.destroyed) hangUp();
        const outcome = await invoker
          .invoke(op, callerOf(request), input, {
            validate: false,
            // An agent route's onRequest hook (operations/admit.ts) admitted the caller by this operation's policy.
            admitted: !operator && !open,
            headers: true,
            signal: gone.signal,
            resourceUrl: `${options.baseUrl}${request.url}`,
            ...(typeof key === 'string'
              ? {
                  idempotencyKey: key,
                  idempotency: { route: request.routeOptions.url ?? binding.url, hash: requestHash(request) },
                  keep: (error) => JSON.stringify(problemBody(error, request.id, options.docsUrl)),
                }
              : {}),
          })
          .finally(() => reply.raw.off('close', hangUp));
        if (!outcome.replayed) {
          // The operation is committed: nothing after it may turn its answer into an error (a send
          // stored, then 503, would be replayed as a 202). Headers it cannot add are left out.
          try {
            await binding.after?.(request, reply, outcome.value as never);
          } catch (error) {
            request.log.warn({ err: error, operation: op.name }, 'headers of a committed operation left out');
          }
          if (!binding.answer)
            return outcome.body === undefined
              ? reply.code(status).send(outcome.value)
              : reply.code(status).type(JSON_TYPE).send(outcome.body);
          const answer = binding.answer(outcome.value as never);
          if (answer.replayed) reply.header('Idempotent-Replayed', 'true');
          return reply.code(answer.status ?? status).send(answer.body);
        }
        return reply
          .code(outcome.status)
          .header('Idempotent-Replayed', 'true')
          .type(outcome.status >= 400 ? PROBLEM_TYPE : JSON_TYPE)
          .send(outcome.body);
      };
      app.route({
        method: binding.method,
        url: binding.url,
        config: {
          auth: operator ? 'admin' : open ? 'public' : 'agent',
          ...(binding.ipLimit ? { ipLimit: binding.ipLimit } : {}),
          ...(op.scope ? { scope: op.scope } : {}),
          ...(op.allowUnverified ? { allowUnverified: true } : {}),
          ...(op.apiKeyOnly ? { apiKeyOnly: true } : {}),
          ...(idempotent ? { idempotent: 'operation' as const } : {}),
          ...(op.errors.length > 0 ? { errors: [...op.errors] } : {}),
        },
        ...(binding.preValidation ? { preValidation: binding.preValidation } : {}),
        schema: {
          ...(binding.hide ? { hide: true } : {}),
          operationId: binding.operationId ?? camel(op.name),
          tags: binding.tags,
          summary: binding.summary ?? op.summary,
          ...((binding.description ?? op.description) ? { description: binding.description ?? op.description } : {}),
          ...(schemas.params ? { params: schemas.params } : {}),
          ...(idempotent ? { headers: IdempotencyKeyHeaders } : {}),
          ...(schemas.querystring ? { querystring: schemas.querystring } : {}),
          ...(schemas.body ? { body: schemas.body } : {}),
          response: { ...binding.responses, [status]: binding.response },
        },
        handler,
      });
    },
  };
}
