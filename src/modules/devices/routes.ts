// The device inventory (admin surface: operator operations, ./operations.ts) and the device heartbeat (device surface, X-Phone-Key).
import { Type } from 'typebox';
import { deviceOf } from '../../http/auth.ts';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { Body, Described, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { optionalBody } from '../../http/validation.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { DeviceOperations } from './operations.ts';
import type { DevicesService } from './service.ts';
import { ALL_CAPABILITIES, CapabilitiesSchema, StatedCapabilitiesBody } from './capabilities.ts';
import { DEFAULT_DAILY_SEND_LIMIT, DEFAULT_SEND_RATE_PER_MINUTE, MAX_SEND_RATE_PER_MINUTE } from './service.ts';

export const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  pattern: '\\S',
  description: 'Why; kept in the operator audit log with the admin token id.',
});
const SendRate = Type.Integer({
  minimum: 1,
  maximum: MAX_SEND_RATE_PER_MINUTE,
  description: `Most SMS segments handed to the phone per minute, 1-${MAX_SEND_RATE_PER_MINUTE} (Android refuses more than 30 per app per minute on an unattended phone); default ${DEFAULT_SEND_RATE_PER_MINUTE}.`,
});
const DailyLimit = Type.Integer({
  minimum: 1,
  maximum: 10_000,
  description: `Most SMS segments handed to the phone in 24 hours, 1-10000; default ${DEFAULT_DAILY_SEND_LIMIT}.`,
});
const Health = Type.Enum(['healthy', 'degraded', 'quarantined'], {
  description:
    'Decided from recent outcomes: degraded warns (carrier-type failures, a high failure rate, sends stuck in sending); quarantined claims nothing until the operator releases it.',
});
const Hold = Nullable(
  Type.Object(
    { code: Type.Enum(['paused', 'quarantined']), reason: Type.String() },
    { description: 'Why the phone claims nothing now; null while it may claim.' },
  ),
);

const SimLine = Type.Object(
  {
    slot: Type.Integer({ description: 'The SIM slot, from 0.' }),
    sim_number: Type.Integer({
      description: "The app's SIM number (1 or 2): the simNumber of its messages and webhooks.",
    }),
    phone_number: Nullable(
      Type.String({
        description:
          'E.164; null until known: the SMSGate app reports numbers redacted, so the operator sets them with PATCH.',
      }),
    ),
    carrier: Nullable(Type.String({ description: 'As the app reported it (the SMSGate app redacts it too).' })),
    cell_id: Nullable(Type.String({ description: 'The cell this line carries; null while free or without a number.' })),
    reported_number: Nullable(
      Type.String({
        description:
          'What the app showed where it gave no usable number: redacted to its last 4 digits, e.g. ********0123.',
      }),
    ),
    hint: Nullable(
      Type.String({ description: 'For a line without a number: why it carries no cell, and how to set its number.' }),
    ),
  },
  { $id: 'SimLine', description: 'A SIM line of a phone.' },
);

export const DEVICE_EXAMPLE = {
  id: 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1',
  phone_number: '+14155550123',
  agent: 'smsgate',
  sims: [
    {
      slot: 0,
      sim_number: 1,
      phone_number: '+14155550123',
      carrier: '****bile',
      cell_id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
      reported_number: null,
      hint: null,
    },
    {
      slot: 1,
      sim_number: 2,
      phone_number: null,
      carrier: 'Mint',
      cell_id: null,
      reported_number: '********0124',
      hint: 'The app reported ********0124 for SIM 2: this line carries no cell until its number is set (PATCH /v1/admin/devices/dev_01jdx1f2g3h4j5k6m7n8p9q0r1 {"sims": [{"sim_number": 2, "phone_number": "+..."}]}).',
    },
  ],
  label: 'Rack A, slot 3',
  send_rate_per_minute: 20,
  daily_send_limit: 300,
  cell_id: 'cell_01jdx2b7c8d9e0f1g2h3j4k5m6',
  online: true,
  last_seen_at: '2026-11-21T12:00:00.000Z',
  battery_pct: 87,
  charging: true,
  signal_dbm: -71,
  app_version: '1.4.0',
  capabilities: { ...ALL_CAPABILITIES },
  paused: false,
  paused_reason: null,
  health: 'healthy',
  health_reason: null,
  health_changed_at: null,
  sent_24h: 112,
  failed_24h: 1,
  created_at: '2026-11-20T09:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};

export const Device = Type.Object(
  {
    id: Type.String({ description: 'dev_... id' }),
    phone_number: Nullable(
      Type.String({
        description:
          "E.164: the phone's number (an SMSGate phone's first line with a known number); null while none of its lines has one.",
      }),
    ),
    agent: Type.Enum(['simulator', 'termux', 'smsgate'], {
      description:
        'What runs the phone: the built-in simulator or the Termux agent (X-Phone-Key, /v1/device) or the SMSGate app (/mobile/v1).',
    }),
    sims: Type.Array(SimLine, {
      description:
        'Its SIM lines: one for a phone added by POST /v1/admin/devices, one per SIM card the SMSGate app reported.',
    }),
    label: Nullable(Type.String()),
    send_rate_per_minute: Type.Integer({ description: 'SMS segments per minute.' }),
    daily_send_limit: Type.Integer({ description: 'SMS segments per 24 hours.' }),
    cell_id: Nullable(
      Type.String({
        description: "The cell of its first line that carries one (every line's is in sims); null while free.",
      }),
    ),
    online: Type.Boolean(),
    last_seen_at: Nullable(Timestamp),
    battery_pct: Nullable(Type.Integer()),
    charging: Nullable(Type.Boolean()),
    signal_dbm: Nullable(Type.Integer()),
    app_version: Nullable(Type.String()),
    capabilities: CapabilitiesSchema,
    paused: Type.Boolean({ description: 'Held by the operator: claims nothing until resumed.' }),
    paused_reason: Nullable(Type.String()),
    health: Health,
    health_reason: Nullable(Type.String({ description: 'Why the phone is degraded or quarantined.' })),
    health_changed_at: Nullable(Timestamp),
    sent_24h: Type.Integer({ description: 'Messages the phone reported sent in the last 24 hours.' }),
    failed_24h: Type.Integer({ description: 'Messages the phone reported failed in the last 24 hours.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Device',
    description: 'A phone in the inventory, with its last reported telemetry.',
    examples: [DEVICE_EXAMPLE],
  },
);

export const DeviceWithKey = Type.Object(
  {
    ...Device.properties,
    device_key: Type.String({ description: 'cg_dev_... for the X-Phone-Key header. Shown once; store it now.' }),
  },
  {
    $id: 'DeviceWithKey',
    description: 'A phone with its device key, shown once.',
    examples: [{ ...DEVICE_EXAMPLE, device_key: 'cg_dev_Q2w3E4r5T6y7U8i9O0p1A2s3D4f5G6h7' }],
  },
);

export const DeviceList = pageOf('devices', Device, 'DeviceList', 'A page of phones.', DEVICE_EXAMPLE);

const DeviceConfig = Type.Object(
  {
    device_id: Type.String(),
    cell_id: Nullable(Type.String({ description: 'The cell this phone carries; null while free.' })),
    phone_number: Nullable(Type.String({ description: 'E.164; null for an SMSGate phone with no known number yet.' })),
    send_rate_per_minute: Type.Integer({ description: 'SMS segments per minute.' }),
    daily_send_limit: Type.Integer({ description: 'SMS segments per 24 hours.' }),
    paused: Type.Boolean(),
    health: Health,
    hold: Hold,
    server_time: Timestamp,
  },
  {
    $id: 'DeviceConfig',
    description: "The phone's configuration, answered to every heartbeat.",
    examples: [
      {
        device_id: DEVICE_EXAMPLE.id,
        cell_id: DEVICE_EXAMPLE.cell_id,
        phone_number: '+14155550123',
        send_rate_per_minute: 20,
        daily_send_limit: 300,
        paused: false,
        health: 'healthy',
        hold: null,
        server_time: '2026-11-21T12:00:00.000Z',
      },
    ],
  },
);

const Heartbeat = Type.Object(
  {
    battery_pct: Nullable(Type.Integer({ description: 'Percent, 0-100; null when the heartbeat did not say.' })),
    charging: Nullable(Type.Boolean()),
    signal_dbm: Nullable(Type.Integer({ description: 'dBm, -150-0; null when the heartbeat did not say.' })),
    received_at: Timestamp,
  },
  { $id: 'Heartbeat', description: 'What a phone reported in a heartbeat.' },
);

const HEARTBEAT_EXAMPLE = { battery_pct: 87, charging: true, signal_dbm: -71, received_at: '2026-11-21T12:00:00.000Z' };
export const HeartbeatList = pageOf(
  'heartbeats',
  Heartbeat,
  'HeartbeatList',
  "A page of a phone's heartbeat history, newest first.",
  HEARTBEAT_EXAMPLE,
);

/** PATCH's `sims`: numbers for SIM lines (contract §13). */
export const SimNumbers = Type.Array(
  Type.Object({
    sim_number: Type.Integer({ minimum: 1, maximum: 8, description: "The line's sim_number." }),
    phone_number: Type.String({
      minLength: 1,
      maxLength: 32,
      description:
        'International format; stored in E.164. 409 phone_number_taken when another phone or line carries it, line_carries_cell when the line carries a cell with another number.',
    }),
  }),
  {
    minItems: 1,
    maxItems: 2,
    description:
      "Numbers for the phone's SIM lines (the SMSGate app reports them redacted): a line with a number can carry a cell, and a cell waiting for a phone takes it at once.",
  },
);

/** What the operator sets of a phone: fields of the create, update and enrollment bodies. */
export const DeviceSettings = {
  label: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
  send_rate_per_minute: Type.Optional(SendRate),
  daily_send_limit: Type.Optional(DailyLimit),
};

export const HeartbeatsQuery = {
  from: Type.Optional({ ...Timestamp, description: 'Only heartbeats received at or after this time.' }),
  to: Type.Optional({ ...Timestamp, description: 'Only heartbeats received before this time.' }),
  ...PaginationQuery,
};

/** What a heartbeat reports: every field optional. */
export const HeartbeatReport = Body(
  {
    battery_pct: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    charging: Type.Optional(Type.Boolean()),
    signal_dbm: Type.Optional(Type.Integer({ minimum: -150, maximum: 0 })),
    app_version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    capabilities: Type.Optional(StatedCapabilitiesBody),
  },
  {
    examples: [
      { battery_pct: 87, charging: true, signal_dbm: -71, app_version: '1.4.0' },
      {
        battery_pct: 64,
        charging: false,
        app_version: 'cellgate-termux/0.1.0',
        capabilities: { delivery_reports: false, mms_send: false, mms_receive: false },
      },
    ],
  },
);

export function registerDeviceRoutes(app: App, devices: DevicesService, rest: RestBinder, ops: DeviceOperations): void {
  const admin = restRoutes(app, rest, ['Admin']);
  const all = '/v1/admin/devices';
  const one = `${all}/:device_id`;
  admin(ops.createDevice, 'POST', all, 'The added phone with its device key (shown once).');
  admin(ops.listDevices, 'GET', all, 'A page of phones, newest first.');
  admin(ops.getDevice, 'GET', one, 'The phone.');
  admin(ops.updateDevice, 'PATCH', one, 'The updated phone.');
  admin(ops.deleteDevice, 'DELETE', one, 'Removed; its device key stops working.');
  admin(ops.listDeviceHeartbeats, 'GET', `${one}/heartbeats`, 'A page of heartbeats, newest first.');
  admin(ops.pauseDevice, 'POST', `${one}/pause`, 'The phone.');
  admin(ops.resumeDevice, 'POST', `${one}/resume`, 'The phone.');
  admin(ops.releaseDevice, 'POST', `${one}/release`, 'The phone.');
  const rotated = 'The phone with its new device key (shown once).';
  admin(ops.rotateDeviceKey, 'POST', `${one}/rotate-key`, rotated, { preValidation: optionalBody });

  app.post(
    '/v1/device/heartbeat',
    {
      config: { auth: 'device' },
      preValidation: optionalBody,
      schema: {
        operationId: 'sendHeartbeat',
        tags: ['Device'],
        summary: "Report presence, telemetry and capabilities; returns the phone's configuration",
        body: HeartbeatReport,
        response: { 200: Described(DeviceConfig, "The phone's configuration.") },
      },
    },
    async (request) => devices.heartbeat(deviceOf(request).deviceId, request.body ?? {}),
  );

  app.get(
    '/v1/device/config',
    {
      // Checking a key is no sign that the phone app runs: `cellgate device doctor` must not bring
      // the phone (and its cell) online.
      config: { auth: 'device', presence: false },
      schema: {
        operationId: 'getDeviceConfig',
        tags: ['Device'],
        summary: "Read the phone's configuration without calling in",
        description:
          'Checks the device key and answers what a heartbeat answers, without counting as a heartbeat: the phone stays offline if it was (`cellgate device doctor`).',
        response: { 200: Described(DeviceConfig, "The phone's configuration.") },
      },
    },
    async (request) => devices.config(deviceOf(request).deviceId),
  );
}
