// Verification codes (contract §12): the detector runs on inbound uploads (messages/inbound.ts);
// this module lists and waits for the codes it found.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CellWakeups } from '../messages/wakeups.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { codeOperations, type CodeOperations } from './operations.ts';
import { CodesRepository } from './repository.ts';
import { registerCodeRoutes } from './routes.ts';
import { CodesService } from './service.ts';

export interface CodesModule {
  codes: CodesService;
  operations: CodeOperations;
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  cells: { getOwned(organizationId: string, cellId: string): Promise<{ id: string }> };
  arrivals: CellWakeups;
  /** Concurrent waiting calls per organization (shared with MCP's waits). */
  waits: ConnectionCap;
}): CodesModule {
  const codes = new CodesService({
    repo: new CodesRepository(deps.db),
    cells: deps.cells,
    clock: deps.clock,
    arrivals: deps.arrivals,
  });
  return { codes, operations: codeOperations(codes, deps.waits) };
}

export function register(app: App, module: CodesModule, rest: RestBinder): void {
  registerCodeRoutes(app, rest, module.operations);
}
