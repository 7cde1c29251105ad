// GET /v1/cells/{cell_id}/codes (contract §12), bound from its operation (./operations.ts).
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { CodeOperations } from './operations.ts';
import { CodeList } from './schemas.ts';

export function registerCodeRoutes(app: App, rest: RestBinder, ops: CodeOperations): void {
  rest.bind(app, ops.listCodes, {
    method: 'GET',
    url: '/v1/cells/:cell_id/codes',
    tags: ['Messages'],
    response: Described(CodeList, 'A page of codes, newest first; empty when none arrived in time.'),
  });
}
