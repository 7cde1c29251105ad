// Cells: an organization's phone lines (contract §4).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { CellsService } from './service.ts';
import { ALL_CAPABILITIES, CapabilitiesSchema } from '../devices/capabilities.ts';

// At least one visible character: a name of spaces is no name.
const DisplayName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'A name for the line, 1-100 characters.',
});

/** Quiet hours of a cell or pod (contract §12); the service checks the times and the zone (400 naming each). */
export const QuietHoursSchema = Nullable(
  Type.Object(
    {
      start: Type.String({ maxLength: 5, description: 'Local start, HH:MM (24-hour).' }),
      end: Type.String({ maxLength: 5, description: 'Local end, HH:MM; before start: the window spans midnight.' }),
      time_zone: Type.String({ maxLength: 64, description: 'IANA time zone name, e.g. America/New_York.' }),
    },
    {
      additionalProperties: false,
      description:
        "A daily window in which sends wait: a send that would go out inside it is scheduled for its end, unless it says send_now. Follows the zone's daylight-saving changes.",
      examples: [{ start: '21:00', end: '08:00', time_zone: 'America/New_York' }],
    },
  ),
);

const CELL_EXAMPLE = {
  id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
  display_name: 'Support line',
  phone_number: '+14155550123',
  status: 'active',
  online: true,
  last_seen_at: '2026-11-21T12:00:00.000Z',
  pod_id: null,
  quiet_hours: null,
  capabilities: { ...ALL_CAPABILITIES },
  created_at: '2026-11-21T11:58:02.123Z',
  updated_at: '2026-11-21T11:58:02.123Z',
};

export const Cell = Type.Object(
  {
    id: Type.String({ description: 'cell_... id' }),
    display_name: Type.String(),
    phone_number: Nullable(Type.String({ description: 'E.164; null while provisioning.' })),
    status: Type.Enum(['provisioning', 'active', 'suspended', 'released'], {
      description: 'provisioning: waiting for a free device; active; suspended (billing); released (deleted).',
    }),
    online: Type.Boolean({ description: 'Whether the phone carrying the line has called in within the last 120 s.' }),
    last_seen_at: Nullable(Timestamp),
    pod_id: Nullable(Type.String()),
    quiet_hours: QuietHoursSchema,
    capabilities: CapabilitiesSchema,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Cell',
    description: 'A phone line: a phone number carried by a physical Android phone.',
    examples: [CELL_EXAMPLE],
  },
);

const CellList = Type.Object(
  { cells: Type.Array(Cell), next_cursor: NextCursor },
  { $id: 'CellList', description: 'A page of cells.', examples: [{ cells: [CELL_EXAMPLE], next_cursor: null }] },
);

const CellPath = IdParam('id', 'cell');

export function registerCellRoutes(app: App, cells: CellsService): void {
  app.post(
    '/v1/cells',
    {
      config: { auth: 'agent', scope: 'cells:write', errors: ['payment_required'] },
      schema: {
        operationId: 'createCell',
        tags: ['Cells'],
        summary: 'Create a cell',
        description:
          'Assigns a free phone from the inventory (status active). With none free the cell is provisioning, with phone_number null, until one is added. client_id is not accepted. ' +
          "With billing on, an organization with no paid tier gets 402 with the setup to pay (of `tier`, starter by default); past the tier's included cells, a paid create_cell is needed.",
        querystring: Type.Object({
          tier: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 32,
              description: 'The tier whose setup a 402 quotes (default starter).',
            }),
          ),
        }),
        body: Body({ display_name: DisplayName }, { examples: [{ display_name: 'Support line' }] }),
        response: {
          201: Described(
            Cell,
            'The created cell: active with its phone number, or provisioning while no phone is free.',
          ),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await cells.create(agentOf(request).organizationId, request.body.display_name, { tier: request.query.tier }),
        ),
  );

  app.get(
    '/v1/cells',
    {
      config: { auth: 'agent', scope: 'cells:read' },
      schema: {
        operationId: 'listCells',
        tags: ['Cells'],
        summary: 'List cells, newest first',
        description: 'Released cells are not listed.',
        querystring: Type.Object({
          ...PaginationQuery,
          status: Type.Optional(Type.Enum(['provisioning', 'active', 'suspended'])),
        }),
        response: { 200: Described(CellList, 'A page of cells, newest first.') },
      },
    },
    async (request) => cells.list(agentOf(request).organizationId, request.query.status, request.query),
  );

  app.get(
    '/v1/cells/:id',
    {
      config: { auth: 'agent', scope: 'cells:read' },
      schema: {
        operationId: 'getCell',
        tags: ['Cells'],
        summary: 'Read a cell',
        params: CellPath,
        response: { 200: Described(Cell, 'The cell.') },
      },
    },
    async (request) => cells.get(agentOf(request).organizationId, request.params.id),
  );

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

  app.delete(
    '/v1/cells/:id',
    {
      config: { auth: 'agent', scope: 'cells:write' },
      schema: {
        operationId: 'releaseCell',
        tags: ['Cells'],
        summary: 'Release a cell',
        description:
          'Gives the phone line up: queued messages fail, the phone goes to the next waiting cell, and later reads are 404. Answers with the released cell.',
        params: CellPath,
        response: { 200: Described(Cell, 'The released cell (status released).') },
      },
    },
    async (request) => cells.release(agentOf(request).organizationId, request.params.id),
  );
}
