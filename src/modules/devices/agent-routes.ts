// GET /v1/device/agent.mjs: the device agent as one file a phone can `curl` (docs/android.md).
// Public: the file holds no secret (the open source of src/cli/device-*.ts; the key is given on
// the command line), and an operator fetches it with a bare `curl -fsSLO` before anything else.
// Hidden from the OpenAPI document: a download for operators, not an API operation.
import { isFresh, REVALIDATED_CACHE_CONTROL } from '../../http/conditional.ts';
import { ApiError } from '../../lib/errors.ts';
import type { App } from '../../http/types.ts';
import { AgentBundle } from './agent-bundle.ts';

export function registerAgentRoute(app: App, bundle: AgentBundle = new AgentBundle()): void {
  app.get(
    '/v1/device/agent.mjs',
    {
      config: { auth: 'public' },
      schema: { hide: true },
    },
    async (request, reply) => {
      let agent;
      try {
        agent = await bundle.get();
      } catch (error) {
        request.log.error({ err: error }, 'the device agent could not be built');
        throw new ApiError(
          'unavailable',
          `The device agent is not available: ${error instanceof Error ? error.message : String(error)}.`,
          { headers: { 'Retry-After': '60' } },
        );
      }
      reply
        .header('etag', agent.etag)
        .header('cache-control', REVALIDATED_CACHE_CONTROL)
        .header('x-content-type-options', 'nosniff');
      if (isFresh(request, agent.etag)) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(agent.code);
    },
  );
}
