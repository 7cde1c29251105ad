// Events: the outbox every module emits into, its shared reader (LISTEN/NOTIFY on PostgreSQL), and
// the WebSocket stream.
import websocket from '@fastify/websocket';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { App } from '../../http/types.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import { EVENTS_PRUNE_INTERVAL_MS, eventsPruneWorker } from '../../workers/events-prune.ts';
import { EventsRepository } from './repository.ts';
import { registerEventRoutes } from './routes.ts';
import { EventsService, type EventsLog } from './service.ts';
import { EventStreamHub, selectBearerProtocol, type StreamLog, type StreamOptions } from './stream.ts';

export type EventsModule = ReturnType<typeof build>;

export function build(deps: {
  database: Database;
  clock: Clock;
  log: EventsLog & StreamLog;
  authenticate: (token: string) => Promise<AgentPrincipal | null>;
  /** Safety-net poll of the outbox (tests lengthen it to prove the NOTIFY path). */
  pollMs?: number;
  streamOptions?: Partial<StreamOptions>;
  /** Concurrent streams per organization. */
  streamCap: ConnectionCap;
}) {
  const events = new EventsService({
    repo: new EventsRepository(deps.database.db, deps.database.dialect),
    clock: deps.clock,
    log: deps.log,
    pgClient: deps.database.clientConfig,
    pollMs: deps.pollMs,
  });
  const stream = new EventStreamHub({ ...deps, events, options: deps.streamOptions, cap: deps.streamCap });
  const prune = eventsPruneWorker({ events });
  return {
    events,
    stream,
    ports: Object.values(events.ports),
    loops: [{ name: 'events-prune', intervalMs: EVENTS_PRUNE_INTERVAL_MS, tick: () => prune.tick() }],
  };
}

export async function register(app: App, module: EventsModule): Promise<void> {
  // The shared event reader (and LISTEN on PostgreSQL) runs in every process, workers or not.
  app.addHook('onReady', () => module.events.start());
  app.addHook('onClose', () => module.events.stop());
  // Drain first (1001): @fastify/websocket's own preClose closes sockets without a code.
  app.addHook('preClose', async () => module.stream.drain());
  // In a context of its own: the plugin's per-request hooks then run on the stream route only.
  await app.register(async (streams) => {
    await streams.register(websocket, { options: { maxPayload: 4096, handleProtocols: selectBearerProtocol } });
    registerEventRoutes(streams, module.stream);
  });
}
