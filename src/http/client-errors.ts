// Answers given outside the route pipeline, in the same problem+json shape (contract §2): errors of
// the Node HTTP parser (bad header bytes, headers over the size limit, request timeouts), errors of
// the router (malformed percent-encoding), and the 503 for requests that arrive while the app closes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../lib/errors.ts';
import { http } from '../lib/node-http.ts';
import { asApiError, problemBody, sendProblem } from './errors.ts';
import type { App } from './types.ts';

/** Fastify's `frameworkErrors`: router errors, raised before any hook runs. */
export function frameworkErrorHandler(docsUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    sendProblem(reply, asApiError(error), docsUrl);
  };
}

function parserProblem(code: string | undefined): ApiError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request was not received in time.');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', `The request line and headers exceed ${http.maxHeaderSize / 1024} KiB.`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large', 'The chunk extensions are too large.');
    default:
      return new ApiError(
        'invalid_request',
        'The request is not valid HTTP/1.1 (for example, a control character in a header).',
      );
  }
}

/**
 * Fastify's `clientErrorHandler`: the Node HTTP parser failed or timed out, so there is no Fastify
 * request. Writes a raw problem+json answer with a fresh request id and closes the connection, as
 * Node's own handler does: nothing is written when a response has already started on the socket.
 */
export function clientErrorHandler(docsUrl: string, newRequestId: () => string) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = parserProblem(error.code);
    const requestId = newRequestId();
    this.log.info({ request_id: requestId, status: problem.status, err_code: error.code }, 'client error');
    const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(problemBody(problem, requestId, docsUrl));
    const head = [
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}`,
      'Content-Type: application/problem+json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ];
    // Close once the answer is handed to the kernel; a peer that never reads does not hold it open.
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/**
 * At close, how long idle keep-alive connections stay open so that their next request is answered
 * (503, Connection: close) instead of meeting a connection closed under it.
 */
export const DRAIN_IDLE_MS = 1000;

/**
 * Draining on app.close(): every request that arrives from then on (on a kept-alive connection, or
 * a new one while the idle connections drain) is answered 503 `unavailable` with Retry-After and
 * Connection: close. Closing waits up to `idleMs` for idle keep-alive connections to be used or
 * closed by their client before the server closes what is left; requests in progress (long-polls)
 * and WebSockets do not hold that wait.
 */
export function registerDraining(app: App, docsUrl: string, idleMs = DRAIN_IDLE_MS): void {
  let draining = false;
  // Requests in progress per open HTTP connection; upgraded (WebSocket) sockets leave the map.
  const inProgress = new Map<Socket, number>();
  app.server.on('connection', (socket: Socket) => {
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const count = inProgress.get(socket);
    if (count === undefined) return;
    inProgress.set(socket, count + 1);
    res.once('close', () => {
      const left = inProgress.get(socket);
      if (left !== undefined) inProgress.set(socket, left - 1);
    });
  });
  app.server.on('upgrade', (req: IncomingMessage) => inProgress.delete(req.socket));

  app.addHook('onRequest', (request, reply, done) => {
    if (!draining) return done();
    reply.header('X-Request-Id', request.id);
    const error = new ApiError('unavailable', 'The service is shutting down; retry in a few seconds.', {
      headers: { 'Retry-After': '5', Connection: 'close' },
    });
    sendProblem(reply, error, docsUrl);
  });

  app.addHook('preClose', async () => {
    draining = true;
    const deadline = performance.now() + idleMs;
    while ([...inProgress.values()].includes(0) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Node's own idle check misses some kept-alive sockets (seen with undici clients whose last
    // request was a long-poll), and server.close() would then wait for the client to hang up.
    for (const [socket, requests] of inProgress) if (requests === 0) socket.destroy();
  });
}
