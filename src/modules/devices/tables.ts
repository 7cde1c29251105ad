export interface DevicesTable {
  id: string;
  /** E.164; null for an SMSGate phone none of whose lines has a known number yet (contract §13). */
  phone_number: string | null;
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
  /** 1 while the operator holds the phone: it claims nothing (contract §11). */
  paused: number;
  paused_reason: string | null;
  health: DeviceHealth;
  health_reason: string | null;
  health_changed_at: string | null;
  /** Outcomes before this (the operator's last release) no longer count for health. */
  health_reset_at: string | null;
  /** Most SMS segments handed to the phone in 24 hours. */
  daily_send_limit: number;
  /** 1 after device.battery_low fired, until the phone charges or rises to 15% again. */
  battery_low: number;
  /** native (the simulator or the Termux agent, X-Phone-Key) or smsgate (the SMSGate app, /mobile/v1). */
  agent: 'native' | 'smsgate';
  /** The key the SMSGate app signs its webhooks with (it must be readable to check them); null for native devices. */
  signing_key: string | null;
  push_token: string | null;
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

export type DeviceHealth = 'healthy' | 'degraded' | 'quarantined';

/** What became of a send a phone claimed: the input of its health state (kept 7 days). */
export interface DeviceOutcomesTable {
  device_id: string;
  message_id: string;
  /** sent (or delivered), failed, or stuck (the lease ran out with no report). */
  outcome: 'sent' | 'failed' | 'stuck';
  error_code: string | null;
  segments: number;
  created_at: string;
}

/** A SIM line a phone reported (SMSGate's simCards): sim_number 1 or 2, the app's numbering. */
export interface DeviceSimsTable {
  device_id: string;
  sim_number: number;
  slot: number;
  phone_number: string | null;
  /** What the app showed where it gave no usable number: redacted to its last 4 digits (GatewayService.kt redact()). */
  reported_number: string | null;
  carrier: string | null;
  iccid: string | null;
  /** The cell this line carries (a line with a phone number is assignable); null while free. */
  cell_id: string | null;
}

/** An operator's invitation for one phone to sign in (contract §13): single use, 24 hours. */
export interface DeviceEnrollmentsTable {
  id: string;
  token_hash: string;
  code_hash: string;
  code_expires_at: string;
  label: string | null;
  send_rate_per_minute: number | null;
  daily_send_limit: number | null;
  /** The admin token that made it: the device it becomes is recorded in the audit log as theirs. */
  created_by: string;
  expires_at: string;
  used_at: string | null;
  device_id: string | null;
  created_at: string;
}

export interface DevicesTables {
  device_sims: DeviceSimsTable;
  device_enrollments: DeviceEnrollmentsTable;
  devices: DevicesTable;
  device_heartbeats: DeviceHeartbeatsTable;
  device_outcomes: DeviceOutcomesTable;
}
