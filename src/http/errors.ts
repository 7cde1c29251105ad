// One error shape for every route: RFC 9457 problem+json with a machine `code` and the request id.
// The codes, their statuses and titles are one table in src/lib/errors.ts.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { ApiError, ERRORS, notFound } from '../lib/errors.ts';
import { invalidInput, type SchemaError } from '../operations/validate.ts';

export function problemBody(error: ApiError, requestId: string, docsUrl: string) {
  return {
    type: `${docsUrl}/errors/${error.code}`,
    title: ERRORS[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extensions,
  };
}

export function sendProblem(reply: FastifyReply, error: ApiError, docsUrl: string): FastifyReply {
  if (error.code === 'unauthenticated' && !reply.hasHeader('www-authenticate')) {
    reply.header('WWW-Authenticate', 'Bearer');
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/problem+json; charset=utf-8')
    .send(problemBody(error, reply.request.id, docsUrl));
}

/** The largest request body a route takes unless it says otherwise (a 413 names the route's own). */
export const BODY_LIMIT = 256 * 1024;

/**
 * Whatever a handler or Fastify threw, in our shape: an ApiError as it is, a lost database as 503,
 * Fastify's own errors (body parsing, limits, content type, validation, routing) by their code.
 * `request` names the route's body limit in a 413.
 */
export function asApiError(error: unknown, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error))
    return new ApiError('unavailable', 'The database is unreachable; retry shortly.', {
      headers: { 'Retry-After': '2' },
    });
  return fromFastifyError(error as FastifyError, request?.routeOptions.bodyLimit);
}

function fromFastifyError(
  error: FastifyError & { validation?: SchemaError[]; validationContext?: string },
  bodyLimit = BODY_LIMIT,
): ApiError {
  if (error.validation) return invalidInput(error.validation, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${bodyLimit / 1024} KiB.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'The URL path has malformed percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'A path segment is too long.');
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  if (error.statusCode === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (error.statusCode === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (error.statusCode === 404) return notFound('route');
  return new ApiError('internal_error', 'Something went wrong on our side; the request id identifies it in our logs.');
}

/** Completes an error of a request before it is rendered (billing's 402s: see src/operations/invoke.ts). */
export type RequestProblemEnricher = (request: FastifyRequest, error: ApiError) => Promise<ApiError>;

/** Per server (encapsulated contexts share the underlying http.Server): at most one enricher. */
const requestEnrichers = new WeakMap<object, RequestProblemEnricher>();

export function setProblemEnricher(app: FastifyInstance, enricher: RequestProblemEnricher): void {
  requestEnrichers.set(app.server, enricher);
}

/**
 * Renders an error as an HTML page for the requests under one path (the consoles): a person in a
 * browser gets a page in the console's look, not problem+json. The error's headers (Retry-After)
 * are set before it is called.
 */
export type ProblemPage = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => FastifyReply;

/** Per server, as the enricher: the HTML error pages by path prefix, the longest prefix first. */
const problemPages = new WeakMap<object, { prefix: string; render: ProblemPage }[]>();

export function setProblemPage(app: FastifyInstance, prefix: string, render: ProblemPage): void {
  const pages = [...(problemPages.get(app.server) ?? []), { prefix, render }];
  problemPages.set(
    app.server,
    pages.sort((a, b) => b.prefix.length - a.prefix.length),
  );
}

/** The page for a request under a registered prefix that a browser made: it takes text/html (a
 * navigation or a form), not a script's fetch or a live view's EventSource. */
function problemPageFor(request: FastifyRequest): ProblemPage | undefined {
  if (!(request.headers.accept ?? '').includes('text/html')) return undefined;
  const path = request.url.split('?')[0];
  return problemPages
    .get(request.server.server)
    ?.find((page) => path === page.prefix || path.startsWith(`${page.prefix}/`))?.render;
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, docsUrl: string): FastifyReply {
  const page = problemPageFor(request);
  if (!page) return sendProblem(reply, error, docsUrl);
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  return page(request, reply, error);
}

export function registerErrorHandling(app: FastifyInstance, docsUrl: string): void {
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A lost or unreachable database is worth retrying shortly (503), not a bug (500).
    const apiError = asApiError(error, request);
    if (apiError.code === 'unavailable' && !(error instanceof ApiError))
      request.log.warn({ err: error }, 'request failed: database unavailable');
    else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    const enrich = apiError.status === 402 ? requestEnrichers.get(request.server.server) : undefined;
    return sendError(request, reply, enrich ? await enrich(request, apiError) : apiError, docsUrl);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, notFound('route'), docsUrl));
}
