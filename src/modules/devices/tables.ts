export interface DevicesTable {
  id: string;
  phone_number: string;
  label: string | null;
  send_rate_per_minute: number;
  key_prefix: string;
  key_hash: string;
  cell_id: string | null;
  online: number;
  last_seen_at: string | null;
  battery_pct: number | null;
  charging: number | null;
  signal_dbm: number | null;
  app_version: string | null;
  created_at: string;
  updated_at: string;
}

export interface DevicesTables {
  devices: DevicesTable;
}
