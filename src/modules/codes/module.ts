// Verification codes (contract §12): the detector runs on inbound uploads (messages/inbound.ts);
// this module lists and waits for the codes it found.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ConnectionCap } from '../../http/connection-caps.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { codeOperations } from './operations.ts';
import { CodesRepository } from './repository.ts';
import { registerCodeRoutes } from './routes.ts';
import { CodesService, type CodesDeps } from './service.ts';

export type CodesModule = ReturnType<typeof build>;

export function build(
  deps: Omit<CodesDeps, 'repo'> & {
    db: Kysely<DB>;
    /** Concurrent waiting calls per organization (shared with MCP's waits). */
    waits: ConnectionCap;
  },
) {
  const codes = new CodesService({ ...deps, repo: new CodesRepository(deps.db) });
  return { codes, operations: codeOperations(codes, deps.waits) };
}

export function register(app: App, module: CodesModule, rest: RestBinder): void {
  registerCodeRoutes(app, rest, module.operations);
}
