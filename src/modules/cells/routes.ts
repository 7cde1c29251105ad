// Cells: an organization's phone lines (contract §4).
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { CellOperations } from './operations.ts';

export function registerCellRoutes(app: App, rest: RestBinder, ops: CellOperations): void {
  const cells = restRoutes(app, rest, ['Cells']);
  cells(
    ops.createCell,
    'POST',
    '/v1/cells',
    'The created cell: active with its phone number, or provisioning while no phone is free.',
    { query: ['tier'] },
  );
  cells(ops.listCells, 'GET', '/v1/cells', 'A page of cells, newest first.', { summary: 'List cells, newest first' });
  cells(ops.getCell, 'GET', '/v1/cells/:id', 'The cell.');
  cells(ops.updateCell, 'PATCH', '/v1/cells/:id', 'The updated cell.');
  cells(ops.releaseCell, 'DELETE', '/v1/cells/:id', 'The released cell (status released).');
}
