// Cells: an organization's phone lines (contract §4).
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { CellOperations } from './operations.ts';
import { Cell, CellList } from './schemas.ts';

export function registerCellRoutes(app: App, rest: RestBinder, ops: CellOperations): void {
  rest.bind(app, ops.createCell, {
    method: 'POST',
    url: '/v1/cells',
    tags: ['Cells'],
    query: ['tier'],
    response: Described(
      Cell,
      'The created cell: active with its phone number, or provisioning while no phone is free.',
    ),
  });

  rest.bind(app, ops.listCells, {
    method: 'GET',
    url: '/v1/cells',
    tags: ['Cells'],
    summary: 'List cells, newest first',
    response: Described(CellList, 'A page of cells, newest first.'),
  });

  rest.bind(app, ops.getCell, {
    method: 'GET',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    response: Described(Cell, 'The cell.'),
  });

  rest.bind(app, ops.updateCell, {
    method: 'PATCH',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    response: Described(Cell, 'The updated cell.'),
  });

  rest.bind(app, ops.releaseCell, {
    method: 'DELETE',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    response: Described(Cell, 'The released cell (status released).'),
  });
}
