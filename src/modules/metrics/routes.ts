// GET /metrics (Prometheus text format) and the hook that counts every HTTP answer. On the admin
// surface, and also open to CELLGATE_METRICS_TOKEN, a scrape-only secret that opens nothing else.
// Hidden from the OpenAPI document: a scrape target, not part of the API SDKs are generated from.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { bearerToken, hookList } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import type { Metrics } from './registry.ts';

/** Requests no route matched (404s of unknown paths) share one label, so URLs cannot mint series. */
const UNMATCHED = 'unmatched';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when the request carries the metrics token (compared in constant time). */
function hasMetricsToken(request: FastifyRequest, expected: Buffer | null): boolean {
  const token = bearerToken(request);
  return expected !== null && token !== null && timingSafeEqual(digest(token), expected);
}

export function registerMetricsRoutes(app: App, metrics: Metrics, options: { metricsToken: string | null }): void {
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED,
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });

  const expected = options.metricsToken === null ? null : digest(options.metricsToken);
  app.register(async (scope) => {
    // registerAuth's onRoute (inherited, it runs first) has put the admin check in front of this
    // route's onRequest hooks: the metrics token skips them, anything else goes through them.
    scope.addHook('onRoute', (route) => {
      const checks = hookList(route.onRequest) as onRequestHookHandler[];
      route.onRequest = async function metricsOrAdmin(this: unknown, request: FastifyRequest, reply: FastifyReply) {
        if (hasMetricsToken(request, expected)) return;
        for (const check of checks)
          await (check as (request: FastifyRequest, reply: FastifyReply) => Promise<void>).call(this, request, reply);
      };
    });
    scope.get(
      '/metrics',
      {
        config: { auth: 'admin', unlimited: true },
        schema: { hide: true },
      },
      async (_request, reply) => {
        const body = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(body);
      },
    );
  });
}
