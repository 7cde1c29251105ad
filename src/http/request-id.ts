// X-Request-Id: echo a well-formed incoming id, otherwise generate one; every response carries it.
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { App } from './types.ts';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(raw: IncomingMessage, clock: Clock): string {
  const incoming = raw.headers['x-request-id'];
  return typeof incoming === 'string' && VALID.test(incoming) ? incoming : newId('req', clock);
}

export function registerRequestId(app: App): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
}
