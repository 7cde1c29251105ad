// The REST binder: a route and its OpenAPI entry from an operation. The operation gives the
// operationId, summary, description, scope, organization rule, idempotency and errors; the
// binding says where each input field travels (path, query, body) with the same TypeBox schemas
// as before, so the document does not change. The handler is one call to invoke.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { adminOf, agentOf } from '../http/auth.ts';
import { problemBody } from '../http/errors.ts';
import { IdempotencyKeyHeaders, requestHash } from '../http/idempotency.ts';
import type { App } from '../http/types.ts';
import { ANONYMOUS, type AnyOperation, type Caller } from './operation.ts';
import type { Invoker } from './invoke.ts';

export interface RestBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  /** Default: the operation's name in camelCase. */
  operationId?: string;
  tags: string[];
  /** Default: the operation's. */
  summary?: string;
  description?: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /**
   * The operation's input from the request's fields (path, query and body merged, as named), where
   * it is not those fields: a path parameter under the operation's name for it, a value as written.
   */
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
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const fields = {
          ...(request.params as object),
          ...(request.query as object),
          ...(request.body as object),
        } as Record<string, unknown>;
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
          if (!binding.answer) return reply.code(status).send(outcome.value);
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
          ...(binding.params ? { params: binding.params } : {}),
          ...(idempotent ? { headers: IdempotencyKeyHeaders } : {}),
          ...(binding.querystring ? { querystring: binding.querystring } : {}),
          ...(binding.body ? { body: binding.body } : {}),
          response: { ...binding.responses, [status]: binding.response },
        },
        handler,
      });
    },
  };
}
