export type CellStatus = 'provisioning' | 'active' | 'suspended' | 'released';

export interface CellsTable {
  id: string;
  organization_id: string;
  display_name: string;
  phone_number: string | null;
  status: CellStatus;
  device_id: string | null;
  pod_id: string | null;
  /** JSON {start, end, time_zone} or null (contract §12). */
  quiet_hours: string | null;
  created_at: string;
  updated_at: string;
  released_at: string | null;
}

export interface CellsTables {
  cells: CellsTable;
}
