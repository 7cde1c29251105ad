// The operator's events about phones (contract §11), delivered to operator webhooks
// (/v1/admin/webhooks) with the Device (admin view) as data.
export const DEVICE_EVENT_TYPES = [
  'device.offline',
  'device.online',
  'device.battery_low',
  'device.unhealthy',
  'device.recovered',
] as const;

export type DeviceEventType = (typeof DEVICE_EVENT_TYPES)[number];

/** Below this battery level, not charging, a phone is low (once per dip: until it charges or climbs back). */
export const BATTERY_LOW_PCT = 15;
