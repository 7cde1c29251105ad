// Pods: sender pools of cells, with drafts, contact lists and ignore lists (each under a cell or a
// pod) and cycle jobs (ring, broadcast) advanced by the cycle worker.
import type { StoredCaps } from '../../operations/stored-caps.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB, Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../http/types.ts';
import type { EventsService } from '../events/service.ts';
import { combinedPace } from '../messages/pace.ts';
import type { MessagesService } from '../messages/service.ts';
import type { MessageView } from '../messages/views.ts';
import { CyclePlanner } from './cycle-planner.ts';
import { CycleRepository } from './cycle-repository.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { podOperations } from './operations.ts';
import { CycleService } from './cycle-service.ts';
import { CYCLE_JOBS_INTERVAL_MS, CycleWorker } from './cycle-worker.ts';
import { DraftsRepository } from './drafts-repository.ts';
import { DraftsService } from './drafts-service.ts';
import { IgnoreRepository } from './ignore-repository.ts';
import { IgnoreService } from './ignore-service.ts';
import { ListsRepository } from './lists-repository.ts';
import { ListsService } from './lists-service.ts';
import type { CellsPort, DevicesPort } from './ports.ts';
import { PodsRepository } from './repository.ts';
import { registerPodRoutes } from './routes.ts';
import { Scopes, type Scope } from './scope.ts';
import { PodsService } from './service.ts';

export type PodsModule = ReturnType<typeof build>;
/** The RateLimit-* pace of a draft send (its cell's) and of a cycle job (the pod's active cells together). */
export type PodPaces = PodsModule['paces'];

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  events: EventsService;
  cells: CellsPort;
  devices: DevicesPort;
  messages: MessagesService;
  log: FastifyBaseLogger;
  storedCaps: StoredCaps;
}) {
  const { db, clock, cells, messages, storedCaps, devices, events, log } = deps;
  const pods = new PodsService({ repo: new PodsRepository(db), cells, clock, storedCaps });
  const scopes = new Scopes({ cells, pods });
  const drafts = new DraftsService({ repo: new DraftsRepository(db), pods, messages, clock, storedCaps });
  const lists = new ListsService({ repo: new ListsRepository(db), clock, storedCaps });
  const ignore = new IgnoreService({ repo: new IgnoreRepository(db), cells, clock, storedCaps });
  const cycleRepo = new CycleRepository(db);
  const cycles = new CycleService({ repo: cycleRepo, pods, lists, messages, clock, storedCaps });
  const planner = new CyclePlanner({ repo: cycleRepo, pods, messages, devices, events, clock, log });
  const cycleWorker = new CycleWorker({ repo: cycleRepo, planner, clock, log });
  // Within the module: deleting a pod stops its jobs. (Hooks into other modules are wired by the
  // composition root.)
  pods.onRemove((tx, pod) => cycles.cancelOpenOfPod(tx, pod));
  // Runs in the transaction that deletes a pod or releases a cell (stored-caps room comes back).
  const forgetScope = async (tx: Executor, scope: Scope) => {
    await drafts.discardAllIn(tx, scope);
    await lists.removeAllIn(tx, scope);
  };
  pods.onRemove((tx, pod) => forgetScope(tx, { kind: 'pod', id: pod.id, organizationId: pod.organization_id }));
  const loops = [{ name: 'cycle-jobs', intervalMs: CYCLE_JOBS_INTERVAL_MS, tick: () => cycleWorker.tick() }];
  const operations = podOperations({ pods, drafts, lists, ignore, cycles, scopes });
  const paces = {
    /** The pace its send's transaction read. */
    ofSend: (message: MessageView) => messages.paceOf(message),
    ofPod: async (podId: string) =>
      combinedPace(await Promise.all((await pods.activeCells(podId)).map((cell) => messages.pace(cell.id)))),
  };
  const ports = Object.values(pods.ports);
  // cycleWorker: tests call its tick() with the manual clock (workers are off there).
  return { pods, drafts, lists, ignore, cycles, forgetScope, cycleWorker, scopes, operations, paces, ports, loops };
}

export function register(app: App, module: PodsModule, rest: RestBinder): void {
  registerPodRoutes(app, rest, module.operations, module.paces);
}
