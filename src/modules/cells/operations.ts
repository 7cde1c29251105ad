// Cells' operations (src/operations): bound to REST routes here and to MCP tools in src/modules/mcp.
import { Type } from 'typebox';
import { IdField } from '../../http/schemas.ts';
import { defineOperation } from '../../operations/operation.ts';
import { Cell, CELL_EXAMPLE, CellList, DisplayName, ListCellsQuery, QuietHoursSchema, TierQuery } from './schemas.ts';
import type { CellsService } from './service.ts';

const CellIdField = IdField('cell');

export function cellOperations(cells: CellsService) {
  return {
    listCells: defineOperation({
      name: 'list_cells',
      summary: 'List cells, newest first',
      description: 'Released cells are not listed.',
      scope: 'cells:read',
      idempotency: 'none',
      input: Type.Object(ListCellsQuery),
      output: CellList,
      run: (ctx, input) => cells.list(ctx.organizationId, input.status, input),
    }),
    createCell: defineOperation({
      name: 'create_cell',
      summary: 'Create a cell',
      description:
        'Assigns a free phone from the inventory (status active). With none free the cell is provisioning, with phone_number null, until one is added. client_id is not accepted. ' +
        "With billing on, an organization with no paid tier gets 402 with the setup to pay (of `tier`, starter by default); past the tier's included cells, a paid create_cell is needed.",
      scope: 'cells:write',
      idempotency: 'none',
      status: 201,
      errors: ['payment_required'],
      input: Type.Object(
        { display_name: DisplayName, ...TierQuery },
        { additionalProperties: false, examples: [{ display_name: 'Support line' }] },
      ),
      output: Cell,
      run: (ctx, input) => cells.create(ctx.organizationId, input.display_name, { tier: input.tier }),
    }),
    getCell: defineOperation({
      name: 'get_cell',
      summary: 'Read a cell',
      description: '',
      scope: 'cells:read',
      idempotency: 'none',
      input: Type.Object({ id: CellIdField }),
      output: Cell,
      run: (ctx, input) => cells.get(ctx.organizationId, input.id),
    }),
    updateCell: defineOperation({
      name: 'update_cell',
      summary: 'Update a cell',
      description:
        "Renames the cell (display_name) and sets or clears (null) its quiet_hours; give at least one. Quiet hours of the cell apply instead of its pod's.",
      scope: 'cells:write',
      idempotency: 'none',
      input: Type.Object(
        { id: CellIdField, display_name: Type.Optional(DisplayName), quiet_hours: Type.Optional(QuietHoursSchema) },
        {
          additionalProperties: false,
          examples: [
            { id: CELL_EXAMPLE.id, display_name: 'Sales line' },
            { id: CELL_EXAMPLE.id, quiet_hours: { start: '21:00', end: '08:00', time_zone: 'America/New_York' } },
          ],
        },
      ),
      output: Cell,
      run: (ctx, { id, ...input }) => cells.update(ctx.organizationId, id, input),
    }),
    releaseCell: defineOperation({
      name: 'release_cell',
      summary: 'Release a cell',
      description:
        'Gives the phone line up: queued messages fail, the phone goes to the next waiting cell, and later reads are 404. Answers with the released cell.',
      scope: 'cells:write',
      idempotency: 'none',
      input: Type.Object({ id: CellIdField }),
      output: Cell,
      run: (ctx, input) => cells.release(ctx.organizationId, input.id),
    }),
  };
}

export type CellOperations = ReturnType<typeof cellOperations>;
