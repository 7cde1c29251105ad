// Messaging: sends, conversations, the device protocol (claims, reports, inbound) over one
// repository pair.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { App } from '../../http/types.ts';
import type { Periodic } from '../../lib/background.ts';
import type { Wirable } from '../../lib/ports.ts';
import {
  MESSAGE_LEASES_INTERVAL_MS,
  messageLeasesWorker,
  type MessageLeasesWorker,
} from '../../workers/message-leases.ts';
import type { EventsService } from '../events/service.ts';
import { registerConversationRoutes } from './conversation-routes.ts';
import { ConversationsRepository } from './conversations-repository.ts';
import { DeliveryService } from './delivery.ts';
import { registerDeviceMessageRoutes } from './device-routes.ts';
import { InboundService } from './inbound.ts';
import type { CellsPort, DevicesPort } from './ports.ts';
import { MessagesRepository } from './repository.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { messageOperations, type MessageOperations } from './operations.ts';
import { registerMessageRoutes } from './routes.ts';
import { MessagesService } from './service.ts';
import { CellWakeups } from './wakeups.ts';
import { remoteWakeups } from './remote-wakeups.ts';
import type { PgListener, ListenerLog } from '../../db/pg-listener.ts';
import type pg from 'pg';
import { SCHEDULED_SENDS_INTERVAL_MS, ScheduledSends } from './scheduled.ts';

export interface MessagingModule {
  messages: MessagesService;
  operations: MessageOperations;
  delivery: DeliveryService;
  inbound: InboundService;
  /** Notified per cell when an inbound message with a code is stored (the codes long-poll waits on it). */
  codeArrivals: CellWakeups;
  /** Queues scheduled messages at their send_at; tests call tick() with the manual clock. */
  scheduled: ScheduledSends;
  /** Tests call tick() with the manual clock (workers are off there). */
  messageLeases: MessageLeasesWorker;
  /** PostgreSQL: hears the wake-ups other processes publish; null on SQLite. */
  wakeupListener: PgListener | null;
  ports: Wirable[];
  loops: Periodic[];
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  events: EventsService;
  cells: CellsPort;
  devices: DevicesPort;
  /** On PostgreSQL: wake-ups reach the other processes (remote-wakeups.ts). */
  pgClient?: pg.ClientConfig | null;
  log?: ListenerLog;
}): MessagingModule {
  const repo = new MessagesRepository(deps.db);
  const conversations = new ConversationsRepository(deps.db);
  const wakeups = new CellWakeups();
  const codeArrivals = new CellWakeups();
  const wakeupListener =
    deps.pgClient && deps.log ? remoteWakeups({ wakeups, db: deps.db, pgClient: deps.pgClient, log: deps.log }) : null;
  const messages = new MessagesService({
    repo,
    conversations,
    cells: deps.cells,
    devices: deps.devices,
    clock: deps.clock,
    wakeups,
  });
  const delivery = new DeliveryService({
    repo,
    devices: deps.devices,
    events: deps.events,
    clock: deps.clock,
    wakeups,
  });
  const inbound = new InboundService({
    repo,
    conversations,
    devices: deps.devices,
    events: deps.events,
    clock: deps.clock,
    codeArrivals,
  });
  const scheduled = new ScheduledSends({ repo, events: deps.events, clock: deps.clock, wakeups });
  const messageLeases = messageLeasesWorker({ delivery });
  return {
    messages,
    operations: messageOperations(messages),
    delivery,
    inbound,
    codeArrivals,
    scheduled,
    messageLeases,
    wakeupListener,
    ports: [messages, delivery, inbound, scheduled].flatMap((service) => Object.values(service.ports)),
    loops: [
      { name: 'message-leases', intervalMs: MESSAGE_LEASES_INTERVAL_MS, tick: () => messageLeases.tick() },
      { name: 'scheduled-sends', intervalMs: SCHEDULED_SENDS_INTERVAL_MS, tick: () => scheduled.tick() },
    ],
  };
}

export function register(
  app: App,
  messaging: MessagingModule,
  caps: { longPolls: ConnectionCap },
  rest: RestBinder,
): void {
  registerMessageRoutes(app, messaging.messages, rest, messaging.operations);
  registerConversationRoutes(app, rest, messaging.operations);
  registerDeviceMessageRoutes(app, messaging.delivery, messaging.inbound, caps.longPolls);
  app.addHook('preClose', async () => messaging.delivery.stopWaiting());
  const listener = messaging.wakeupListener;
  if (listener) {
    app.addHook('onReady', () => listener.start());
    app.addHook('onClose', () => listener.stop());
  }
}
