// The Fastify instance and the conventions every route shares: logging, request ids, timeouts,
// draining, body parsing and validation, problem+json errors.
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { http } from '../lib/node-http.ts';
import { clientErrorHandler, frameworkErrorHandler, registerDraining } from './client-errors.ts';
import { BODY_LIMIT, registerErrorHandling } from './errors.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import { REDACT_PATHS, redactUrl } from './log-redaction.ts';
import { registerRequestId, requestIdFor } from './request-id.ts';
import type { App } from './types.ts';
import { registerValidation } from './validation.ts';

/** pino-pretty's options: one terminal line per record (a request is one line, not seven). */
export const PRETTY_OPTIONS = { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true };

/**
 * The pino options of the service's logger (tests build theirs from them): the level, and no
 * secret in any record — credential headers censored, URLs logged redacted (log-redaction.ts).
 */
export function loggerOptions(config: Pick<Config, 'logLevel'>) {
  return {
    level: config.logLevel,
    redact: REDACT_PATHS,
    serializers: {
      // Replaces Fastify's, which logs the URL as it came.
      req: (request: { method?: string; url?: string }) => ({
        method: request.method,
        url: request.url === undefined ? undefined : redactUrl(request.url),
      }),
    },
  };
}

export function createServer(config: Config, clock: Clock, logger: FastifyBaseLogger | false | undefined): App {
  const app = Fastify({
    ...(logger === false
      ? { logger: false }
      : logger
        ? { loggerInstance: logger }
        : {
            logger: {
              ...loggerOptions(config),
              // Human-readable on a terminal (a worker thread formats the lines); JSON otherwise.
              ...(config.logFormat === 'pretty'
                ? { transport: { target: 'pino-pretty', options: PRETTY_OPTIONS } }
                : {}),
            },
          }),
    genReqId: (raw) => requestIdFor(raw, clock),
    childLoggerFactory: lazyChildLogger,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    // Behind a load balancer the client is in X-Forwarded-For (CELLGATE_TRUST_PROXY, docs/operations.md).
    trustProxy: config.trustProxy,
    // A path parameter cannot outgrow the URL, which Node's header limit bounds (431): long ids
    // reach the credential check (401) and the route's validation instead of a 414 before them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: http.maxHeaderSize },
    // Slow senders (a body trickled byte by byte) are cut with a 408; only receiving the request
    // counts, so long-polls and WebSockets are not. Node checks the deadlines every interval.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl, () => newId('req', clock)),
    // registerDraining answers requests during close with a problem+json 503 instead.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerDraining(app, config.docsUrl);
  app.removeContentTypeParser('text/plain');
  registerValidation(app);
  registerErrorHandling(app, config.docsUrl);
  registerRequestId(app);
  // One line per request, at its end (Fastify's "incoming request" / "request completed" pair is
  // off), with the URL redacted; skipped entirely above info level.
  if (['trace', 'debug', 'info'].includes(app.log.level)) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          url: redactUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
      done();
    });
  }
  return app;
}
