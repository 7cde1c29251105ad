// GET /v1/cells/{cell_id}/codes (contract §12), bound from its operation (./operations.ts).
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { CodeOperations } from './operations.ts';

export function registerCodeRoutes(app: App, rest: RestBinder, ops: CodeOperations): void {
  const description = 'A page of codes, newest first; empty when none arrived in time.';
  restRoutes(app, rest, ['Messages'])(ops.listCodes, 'GET', '/v1/cells/:cell_id/codes', description);
}
