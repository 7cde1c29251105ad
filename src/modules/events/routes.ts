// GET /v1/events/stream (WebSocket). Authentication happens inside the socket so that a bad
// credential is a 4401 close the client can read, not an HTTP 401 a browser hides; see stream.ts.
import { ApiError } from '../../lib/errors.ts';
import type { App } from '../../http/types.ts';
import type { EventStreamHub } from './stream.ts';

export function registerEventRoutes(app: App, hub: EventStreamHub): void {
  app.route({
    method: 'GET',
    url: '/v1/events/stream',
    // The handler authenticates (header or bearer.<token> subprotocol) and closes with 4401.
    config: { auth: 'public' },
    schema: { hide: true, tags: ['events'], summary: 'Event stream (WebSocket; see docs/events.md)' },
    handler: async () => {
      throw new ApiError(
        'invalid_request',
        'This is a WebSocket endpoint: connect with "Upgrade: websocket" (wss://.../v1/events/stream).',
      );
    },
    wsHandler: (socket, request) => hub.accept(socket, request),
  });
}
