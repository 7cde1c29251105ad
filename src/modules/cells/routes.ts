// Cells: an organization's phone lines (contract §4).
import { Type } from 'typebox';
import { Body, Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { CellOperations } from './operations.ts';
import { Cell, CellList, DisplayName, ListCellsQuery, QuietHoursSchema, TierQuery } from './schemas.ts';

const CellPath = IdParam('id', 'cell');

export function registerCellRoutes(app: App, rest: RestBinder, ops: CellOperations): void {
  rest.bind(app, ops.createCell, {
    method: 'POST',
    url: '/v1/cells',
    tags: ['Cells'],
    querystring: Type.Object(TierQuery),
    body: Body({ display_name: DisplayName }, { examples: [{ display_name: 'Support line' }] }),
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
    querystring: Type.Object(ListCellsQuery),
    response: Described(CellList, 'A page of cells, newest first.'),
  });

  rest.bind(app, ops.getCell, {
    method: 'GET',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    params: CellPath,
    response: Described(Cell, 'The cell.'),
  });

  rest.bind(app, ops.updateCell, {
    method: 'PATCH',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    params: CellPath,
    body: Body(
      { display_name: Type.Optional(DisplayName), quiet_hours: Type.Optional(QuietHoursSchema) },
      {
        examples: [
          { display_name: 'Sales line' },
          { quiet_hours: { start: '21:00', end: '08:00', time_zone: 'America/New_York' } },
        ],
      },
    ),
    response: Described(Cell, 'The updated cell.'),
  });

  rest.bind(app, ops.releaseCell, {
    method: 'DELETE',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    params: CellPath,
    response: Described(Cell, 'The released cell (status released).'),
  });
}
