// The Fastify instance and the conventions every route shares: logging, request ids, timeouts,
// draining, body parsing and validation, problem+json errors.
import { maxHeaderSize } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { clientErrorHandler, frameworkErrorHandler, registerDraining } from './client-errors.ts';
import { registerErrorHandling } from './errors.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import { registerRequestId, requestIdFor } from './request-id.ts';
import type { App } from './types.ts';
import { registerValidation } from './validation.ts';

const BODY_LIMIT = 256 * 1024;

export function createServer(config: Config, clock: Clock, logger: FastifyBaseLogger | false | undefined): App {
  const app = Fastify({
    ...(logger === false
      ? { logger: false }
      : logger
        ? { loggerInstance: logger }
        : {
            logger: {
              level: config.logLevel,
              redact: ['req.headers.authorization', 'req.headers["x-phone-key"]', 'mail.text'],
              // Human-readable on a terminal (a worker thread formats the lines); JSON otherwise.
              ...(config.logFormat === 'pretty' ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
            },
          }),
    genReqId: (raw) => requestIdFor(raw, clock),
    childLoggerFactory: lazyChildLogger,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    trustProxy: false,
    // A path parameter cannot outgrow the URL, which Node's header limit bounds (431): long ids
    // reach the credential check (401) and the route's validation instead of a 414 before them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
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
  // One line per request (Fastify's own two are off); skipped entirely above info level.
  if (['trace', 'debug', 'info'].includes(app.log.level)) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
      done();
    });
  }
  return app;
}
