// Cells: an organization's phone lines (contract §4).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { Body, Described, IdParam } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { CellOperations } from './operations.ts';
import { Cell, CellList, DisplayName, ListCellsQuery, QuietHoursSchema, TierQuery } from './schemas.ts';
import type { CellsService } from './service.ts';

const CellPath = IdParam('id', 'cell');

export function registerCellRoutes(app: App, cells: CellsService, rest: RestBinder, ops: CellOperations): void {
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

  app.patch(
    '/v1/cells/:id',
    {
      config: { auth: 'agent', scope: 'cells:write' },
      schema: {
        operationId: 'updateCell',
        tags: ['Cells'],
        summary: 'Update a cell',
        description:
          "Renames the cell (display_name) and sets or clears (null) its quiet_hours; give at least one. Quiet hours of the cell apply instead of its pod's.",
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
        response: { 200: Described(Cell, 'The updated cell.') },
      },
    },
    async (request) => cells.update(agentOf(request).organizationId, request.params.id, request.body),
  );

  rest.bind(app, ops.releaseCell, {
    method: 'DELETE',
    url: '/v1/cells/:id',
    tags: ['Cells'],
    params: CellPath,
    response: Described(Cell, 'The released cell (status released).'),
  });
}
