// The operator's events about phones (contract §11), delivered to operator webhooks
// (/v1/admin/webhooks) with the Device (admin view) as data.
/** When each is produced, for the OpenAPI `webhooks` section (its data is the `Device` component). */
export const DEVICE_EVENT_DOCS = {
  'device.offline': 'A phone went silent for 120 s.',
  'device.online': 'A silent phone called the service again.',
  'device.battery_low': 'A phone reported its battery below 15% and not charging (once per dip).',
  'device.unhealthy': 'A phone became degraded or quarantined; data.health_reason says why.',
  'device.recovered': 'A degraded or quarantined phone is healthy again.',
} as const;

export type DeviceEventType = keyof typeof DEVICE_EVENT_DOCS;
export const DEVICE_EVENT_TYPES = Object.keys(DEVICE_EVENT_DOCS) as DeviceEventType[];

/** Below this battery level, not charging, a phone is low (once per dip: until it charges or climbs back). */
export const BATTERY_LOW_PCT = 15;
