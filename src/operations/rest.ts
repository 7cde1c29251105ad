// The REST binder: a route and its OpenAPI entry from an operation. The operation gives the
// operationId, summary, description, scope, organization rule, idempotency and errors; the
// binding says where each input field travels (path, query, body) with the same TypeBox schemas
// as before, so the document does not change. The handler is one call to invoke.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { agentOf } from '../http/auth.ts';
import { problemBody } from '../http/errors.ts';
import { IdempotencyKeyHeaders, requestHash } from '../http/idempotency.ts';
import type { App } from '../http/types.ts';
import type { AnyOperation } from './operation.ts';
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
  /** The success response (Described). */
  response: TSchema;
  preValidation?: RouteOptions['preValidation'];
  /** Runs on a fresh success before it is sent (not on a replay): headers of this transport only. */
  after?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Left out of the OpenAPI document (test probes). */
  hide?: boolean;
  /** The body of an answer, when it is not the operation's value, and whether it is a replay (a client_id's earlier job). */
  answer?: (value: never) => { body: unknown; replayed?: boolean };
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
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const input = {
          ...(request.params as object),
          ...(request.query as object),
          ...(request.body as object),
        } as Record<string, unknown>;
        const key = idempotent ? request.headers['idempotency-key'] : undefined;
        const outcome = await invoker.invoke(op, agentOf(request), input, {
          validate: false,
          headers: true,
          resourceUrl: `${options.baseUrl}${request.url}`,
          ...(typeof key === 'string'
            ? {
                idempotencyKey: key,
                idempotency: { route: request.routeOptions.url ?? binding.url, hash: requestHash(request) },
                keep: (error) => JSON.stringify(problemBody(error, request.id, options.docsUrl)),
              }
            : {}),
        });
        if (!outcome.replayed) {
          await binding.after?.(request, reply);
          if (!binding.answer) return reply.code(status).send(outcome.value);
          const { body, replayed } = binding.answer(outcome.value as never);
          if (replayed) reply.header('Idempotent-Replayed', 'true');
          return reply.code(status).send(body);
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
          auth: 'agent',
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
          response: { [status]: binding.response },
        },
        handler,
      });
    },
  };
}
