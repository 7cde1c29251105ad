// The SMSGate app's device protocol under /mobile/v1 (contract §13; docs/device-protocol.md names
// the app source of each route and field). A door: transport in, SmsgateService, transport out.
// Not in the OpenAPI document: the app, not an agent, is its client.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { App } from '../../http/types.ts';
import { deviceOf } from '../../http/auth.ts';
import { parseJsonList } from '../../http/validation.ts';
import { MOBILE_PATH } from '../devices/enrollments.ts';
import { DevicePatchRequest, MessagePatchRequest, MessagesQuery, RegisterRequest, WEBHOOK_PATH } from './protocol.ts';
import type { SmsgateService } from './service.ts';
import type { SmsEvents } from './events.ts';

/** Every app body is small: a message list of 100 states, a webhook, a SIM list. */
export const MOBILE_BODY_LIMIT = 64 * 1024;

const hidden = { hide: true };
const signed = (request: FastifyRequest) => ({
  signature: request.headers['x-signature'],
  timestamp: request.headers['x-timestamp'],
});
const device = { auth: 'smsgate' as const };

/** Stops a handler's work when the app hangs up. */
function hangUpSignal(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  if (request.raw.socket?.destroyed) gone.abort();
  return gone.signal;
}

export function registerSmsgateRoutes(app: App, smsgate: SmsgateService, events: SmsEvents): void {
  app.post(
    `${MOBILE_PATH}/device`,
    {
      config: { auth: 'public' },
      // The enrollment is checked before the body is read (after the rate limit, which keeps
      // codes from being guessed): without one, 401 whatever the body.
      preParsing: async (request, _reply, payload) => {
        await smsgate.verifyEnrollment(request.headers.authorization);
        return payload;
      },
      bodyLimit: MOBILE_BODY_LIMIT,
      schema: { ...hidden, body: RegisterRequest },
    },
    async (request, reply) => reply.code(201).send(await smsgate.register(request.headers.authorization, request.body)),
  );

  // handlers/mobile.go: readable without a device token (device null); with one, it must be valid.
  app.get(`${MOBILE_PATH}/device`, { config: { auth: 'public' }, schema: hidden }, async (request) => {
    if (request.headers.authorization === undefined) return smsgate.deviceInfo(null, request.ip);
    return smsgate.deviceInfo(await smsgate.authenticate(request.headers.authorization), request.ip);
  });

  app.patch(
    `${MOBILE_PATH}/device`,
    { config: device, bodyLimit: MOBILE_BODY_LIMIT, schema: { ...hidden, body: DevicePatchRequest } },
    async (request, reply) => {
      await smsgate.patchDevice(deviceOf(request).deviceId, request.body);
      return reply.code(204).send();
    },
  );

  app.get(
    `${MOBILE_PATH}/message`,
    { config: device, schema: { ...hidden, querystring: MessagesQuery } },
    // GatewayApi.kt getMessages: the app asks its processing order (FIFO, as the settings map tells it).
    async (request, reply) =>
      smsgate.claim(deviceOf(request).deviceId, request.query.order ?? 'fifo', hangUpSignal(request, reply)),
  );

  app.get(`${MOBILE_PATH}/settings`, { config: device, schema: hidden }, async (request) =>
    smsgate.settings(deviceOf(request).deviceId),
  );

  app.get(`${MOBILE_PATH}/webhooks`, { config: device, schema: hidden }, async () => smsgate.webhooks());

  app.get(`${MOBILE_PATH}/events`, { config: device, schema: hidden }, async (request, reply) =>
    events.open(deviceOf(request).deviceId, request, reply),
  );

  // The app's state reports: a JSON list, checked like every other body.
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: MOBILE_BODY_LIMIT },
      (_request, body, done) => {
        try {
          done(null, parseJsonList(body as Buffer));
        } catch (error) {
          done(error as Error);
        }
      },
    );
    scope.patch(
      `${MOBILE_PATH}/message`,
      { config: device, bodyLimit: MOBILE_BODY_LIMIT, schema: { ...hidden, body: MessagePatchRequest } },
      async (request, reply) => {
        // Checked against MessagePatchRequest by the route schema.
        const states = request.body as Static<typeof MessagePatchRequest>;
        const skipped = await smsgate.reportStates(deviceOf(request).deviceId, states);
        // The app reads no body (GatewayApi.kt patchMessages); the ids left untouched are named here.
        if (skipped.length > 0) reply.header('x-cellgate-ignored', skipped.map((s) => s.id).join(','));
        return reply.code(204).send();
      },
    );
  });

  // The webhooks the app posts: signed over the exact body text, so it is read as text here,
  // whatever its content type: the signature is checked before the body must be JSON.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MOBILE_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      `${MOBILE_PATH}${WEBHOOK_PATH}`,
      {
        config: { auth: 'public' },
        // Missing, malformed or stale signature headers are 401 before the body is read; the
        // signature itself needs the body (checked right after it is parsed).
        preParsing: async (request, _reply, payload) => {
          smsgate.checkSignatureHeaders(signed(request));
          return payload;
        },
        // No body schema: the body is the signed text (none is ''), judged after its signature.
        schema: hidden,
      },
      async (request, reply) => {
        await smsgate.webhook(typeof request.body === 'string' ? request.body : '', signed(request));
        return reply.code(204).send();
      },
    );
  });
}
