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
  /** What the phone last stated in a heartbeat (1/0; 1 until it states otherwise). */
  can_delivery_reports: number;
  can_mms_send: number;
  can_mms_receive: number;
  created_at: string;
  updated_at: string;
}

/** One reported state of a phone, at most one per device per UTC minute (kept 7 days). */
export interface DeviceHeartbeatsTable {
  device_id: string;
  /** Epoch minutes of received_at: the coalescing key. */
  minute: number;
  battery_pct: number | null;
  charging: number | null;
  signal_dbm: number | null;
  received_at: string;
}

export interface DevicesTables {
  devices: DevicesTable;
  device_heartbeats: DeviceHeartbeatsTable;
}
