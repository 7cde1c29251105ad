// Operator metrics: GET /metrics in Prometheus' text format (docs/operations.md, "Metrics and alerts").
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { createMetrics, type Metrics } from './registry.ts';
import { MetricsRepository } from './repository.ts';
import { registerMetricsRoutes } from './routes.ts';

export interface MetricsModule {
  metrics: Metrics;
  metricsToken: string | null;
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  stream: { readonly connectionCount: number };
  metricsToken: string | null;
}): MetricsModule {
  const metrics = createMetrics({
    repo: new MetricsRepository(deps.db),
    clock: deps.clock,
    streamClients: () => deps.stream.connectionCount,
  });
  return { metrics, metricsToken: deps.metricsToken };
}

/** Before the other modules' routes: its onResponse hook counts every route's answers. */
export function register(app: App, module: MetricsModule): void {
  registerMetricsRoutes(app, module.metrics, { metricsToken: module.metricsToken });
}
