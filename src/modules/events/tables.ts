import type { Generated } from 'kysely';

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  organization_id: string;
  type: string;
  data: string;
  created_at: string;
}

export interface EventsTables {
  events: EventsTable;
}
