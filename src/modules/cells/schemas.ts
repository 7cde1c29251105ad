// Cells' schemas: the REST views (contract §4) and inputs, shared by its routes and operations.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { ALL_CAPABILITIES, CapabilitiesSchema } from '../devices/capabilities.ts';

// At least one visible character: a name of spaces is no name.
export const DisplayName = Type.String({
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

export const CELL_EXAMPLE = {
  id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
  display_name: 'Support line',
  phone_number: '+14155550123',
  status: 'active',
  online: true,
  last_seen_at: '2026-11-21T12:00:00.000Z',
  pod_id: null,
  quiet_hours: null,
  capabilities: { ...ALL_CAPABILITIES },
  health: 'healthy',
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
    health: Type.Enum(['healthy', 'degraded', 'quarantined', 'paused'], {
      description:
        'Whether the phone sends: degraded (recent failures; it still sends), quarantined (it looks blocked by the carrier and sends nothing until the operator releases it), paused (held by the operator). Pods never pick a quarantined or paused cell.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Cell',
    description: 'A phone line: a phone number carried by a physical Android phone.',
    examples: [CELL_EXAMPLE],
  },
);

export const CellList = pageOf('cells', Cell, 'CellList', 'A page of cells.', CELL_EXAMPLE);

export const ListCellsQuery = {
  ...PaginationQuery,
  status: Type.Optional(Type.Enum(['provisioning', 'active', 'suspended'])),
};

export const TierQuery = {
  tier: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'The tier whose setup a 402 quotes (default starter).',
    }),
  ),
};
