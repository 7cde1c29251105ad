// The device inventory (admin surface) and the device heartbeat (device surface, X-Phone-Key).
import { Type } from 'typebox';
import { adminOf, deviceOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, NoContent, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { DevicesService } from './service.ts';
import { ALL_CAPABILITIES, CapabilitiesSchema, StatedCapabilitiesBody } from './capabilities.ts';
import { DEFAULT_DAILY_SEND_LIMIT, DEFAULT_SEND_RATE_PER_MINUTE, MAX_SEND_RATE_PER_MINUTE } from './service.ts';

const Label = Type.String({ minLength: 1, maxLength: 100 });
const Reason = Type.String({
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

const DEVICE_EXAMPLE = {
  id: 'dev_01jdx1f2g3h4j5k6m7n8p9q0r1',
  phone_number: '+14155550123',
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

const Device = Type.Object(
  {
    id: Type.String({ description: 'dev_... id' }),
    phone_number: Type.String({ description: 'E.164.' }),
    label: Nullable(Type.String()),
    send_rate_per_minute: Type.Integer({ description: 'SMS segments per minute.' }),
    daily_send_limit: Type.Integer({ description: 'SMS segments per 24 hours.' }),
    cell_id: Nullable(Type.String({ description: 'The cell this phone carries; null while free.' })),
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

const DeviceWithKey = Type.Object(
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

const DeviceList = Type.Object(
  { devices: Type.Array(Device), next_cursor: NextCursor },
  { $id: 'DeviceList', description: 'A page of phones.', examples: [{ devices: [DEVICE_EXAMPLE], next_cursor: null }] },
);

const DeviceConfig = Type.Object(
  {
    device_id: Type.String(),
    cell_id: Nullable(Type.String({ description: 'The cell this phone carries; null while free.' })),
    phone_number: Type.String(),
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

const HeartbeatList = Type.Object(
  { heartbeats: Type.Array(Heartbeat), next_cursor: NextCursor },
  {
    $id: 'HeartbeatList',
    description: "A page of a phone's heartbeat history, newest first.",
    examples: [
      {
        heartbeats: [{ battery_pct: 87, charging: true, signal_dbm: -71, received_at: '2026-11-21T12:00:00.000Z' }],
        next_cursor: null,
      },
    ],
  },
);

const DevicePath = Type.Object({ device_id: Type.String({ minLength: 1, maxLength: 64, description: 'dev_... id' }) });

export function registerDeviceRoutes(app: App, devices: DevicesService): void {
  app.post(
    '/v1/admin/devices',
    {
      config: { auth: 'admin', errors: ['conflict'] },
      schema: {
        operationId: 'createDevice',
        tags: ['Admin'],
        summary: 'Add a phone to the inventory',
        description: 'Returns the device key once. A cell waiting in provisioning gets the phone at once.',
        body: Body(
          {
            phone_number: Type.String({
              minLength: 1,
              maxLength: 32,
              description: 'International format, e.g. +14155552671; stored in E.164.',
            }),
            label: Type.Optional(Nullable(Label)),
            send_rate_per_minute: Type.Optional(SendRate),
            daily_send_limit: Type.Optional(DailyLimit),
          },
          { examples: [{ phone_number: '+14155550123', label: 'Rack A, slot 3', send_rate_per_minute: 20 }] },
        ),
        response: { 201: Described(DeviceWithKey, 'The added phone with its device key (shown once).') },
      },
    },
    async (request, reply) => reply.code(201).send(await devices.create(request.body)),
  );

  app.get(
    '/v1/admin/devices',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'listDevices',
        tags: ['Admin'],
        summary: 'List phones, newest first',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(DeviceList, 'A page of phones, newest first.') },
      },
    },
    async (request) => devices.list(request.query),
  );

  app.get(
    '/v1/admin/devices/:device_id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'getDevice',
        tags: ['Admin'],
        summary: 'Read a phone',
        params: DevicePath,
        response: { 200: Described(Device, 'The phone.') },
      },
    },
    async (request) => devices.get(request.params.device_id),
  );

  app.patch(
    '/v1/admin/devices/:device_id',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'updateDevice',
        tags: ['Admin'],
        summary: "Change a phone's label, send rate or daily limit",
        params: DevicePath,
        body: Body(
          {
            label: Type.Optional(Nullable(Label)),
            send_rate_per_minute: Type.Optional(SendRate),
            daily_send_limit: Type.Optional(DailyLimit),
          },
          { examples: [{ send_rate_per_minute: 30 }] },
        ),
        response: { 200: Described(Device, 'The updated phone.') },
      },
    },
    async (request) => devices.update(request.params.device_id, request.body),
  );

  app.delete(
    '/v1/admin/devices/:device_id',
    {
      config: { auth: 'admin', errors: ['conflict'] },
      schema: {
        operationId: 'deleteDevice',
        tags: ['Admin'],
        summary: 'Remove a phone from the inventory',
        description: 'A phone carrying a cell is 409: release the cell first.',
        params: DevicePath,
        response: { 204: NoContent('Removed; its device key stops working.') },
      },
    },
    async (request, reply) => {
      await devices.remove(request.params.device_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/admin/devices/:device_id/heartbeats',
    {
      config: { auth: 'admin' },
      schema: {
        operationId: 'listDeviceHeartbeats',
        tags: ['Admin'],
        summary: "Read a phone's heartbeat history, newest first",
        description:
          'Battery, charging and signal as the phone reported them; at most one entry per minute (the first heartbeat of the minute), kept 7 days.',
        params: DevicePath,
        querystring: Type.Object({
          from: Type.Optional({ ...Timestamp, description: 'Only heartbeats received at or after this time.' }),
          to: Type.Optional({ ...Timestamp, description: 'Only heartbeats received before this time.' }),
          ...PaginationQuery,
        }),
        response: { 200: Described(HeartbeatList, 'A page of heartbeats, newest first.') },
      },
    },
    async (request) => devices.heartbeats(request.params.device_id, request.query),
  );

  const actions = [
    ['pause', 'pauseDevice', 'Pause a phone: it claims nothing until resumed', 'The phone is already paused.'],
    ['resume', 'resumeDevice', 'Resume a paused phone', 'The phone is not paused.'],
    [
      'release',
      'releaseDevice',
      'Release a quarantined (or degraded) phone back to healthy',
      'The phone is healthy. Failures before the release no longer count towards its health.',
    ],
  ] as const;
  for (const [action, operationId, summary, conflict] of actions) {
    app.post(
      `/v1/admin/devices/:device_id/${action}`,
      {
        config: { auth: 'admin', errors: ['conflict'] },
        schema: {
          operationId,
          tags: ['Admin'],
          summary,
          description: `Recorded in the operator audit log with the reason. 409 conflict: ${conflict}`,
          params: DevicePath,
          body: Body({ reason: Reason }, { examples: [{ reason: 'SIM swap in slot 3' }] }),
          response: { 200: Described(Device, 'The phone.') },
        },
      },
      async (request) =>
        devices[action](request.params.device_id, { actor: adminOf(request), reason: request.body.reason }),
    );
  }

  app.post(
    '/v1/admin/devices/:device_id/rotate-key',
    {
      config: { auth: 'admin' },
      // The body is optional: a reason for the audit log.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'rotateDeviceKey',
        tags: ['Admin'],
        summary: 'Issue a new device key',
        description:
          'The old key stops working at once; the new one is shown once. Recorded in the operator audit log, with the optional reason.',
        params: DevicePath,
        body: Body({ reason: Type.Optional(Reason) }),
        response: { 200: Described(DeviceWithKey, 'The phone with its new device key (shown once).') },
      },
    },
    async (request) =>
      devices.rotateKey(request.params.device_id, { actor: adminOf(request), reason: request.body?.reason ?? null }),
  );

  app.post(
    '/v1/device/heartbeat',
    {
      config: { auth: 'device' },
      // The body is optional: a bare heartbeat only says "still here".
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'sendHeartbeat',
        tags: ['Device'],
        summary: "Report presence, telemetry and capabilities; returns the phone's configuration",
        body: Body(
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
        ),
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
