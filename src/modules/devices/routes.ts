// The device inventory (admin surface) and the device heartbeat (device surface, X-Phone-Key).
import { Type } from 'typebox';
import { deviceOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { DevicesService } from './service.ts';

const Label = Type.String({ minLength: 1, maxLength: 100 });
const SendRate = Type.Integer({ minimum: 1, maximum: 600, description: 'Most messages handed to the phone per minute, 1-600.' });

const Device = Type.Object({
  id: Type.String({ description: 'dev_... id' }),
  phone_number: Type.String({ description: 'E.164.' }),
  label: Nullable(Type.String()),
  send_rate_per_minute: Type.Integer(),
  cell_id: Nullable(Type.String({ description: 'The cell this phone carries; null while free.' })),
  online: Type.Boolean(),
  last_seen_at: Nullable(Timestamp),
  battery_pct: Nullable(Type.Integer()),
  charging: Nullable(Type.Boolean()),
  signal_dbm: Nullable(Type.Integer()),
  app_version: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const DeviceWithKey = Type.Object({
  ...Device.properties,
  device_key: Type.String({ description: 'cg_dev_... for the X-Phone-Key header. Shown once; store it now.' }),
});

const DevicePath = Type.Object({ device_id: Type.String({ minLength: 1, maxLength: 64, description: 'dev_... id' }) });

export function registerDeviceRoutes(app: App, devices: DevicesService): void {
  app.post('/v1/admin/devices', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'Add a phone to the inventory',
      description: 'Returns the device key once. A cell waiting in provisioning gets the phone at once.',
      body: Body({
        phone_number: Type.String({ minLength: 1, maxLength: 32, description: 'International format, e.g. +14155552671; stored in E.164.' }),
        label: Type.Optional(Nullable(Label)),
        send_rate_per_minute: Type.Optional(SendRate),
      }),
      response: { 201: DeviceWithKey },
    },
  }, async (request, reply) => reply.code(201).send(await devices.create(request.body)));

  app.get('/v1/admin/devices', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'List phones, newest first',
      querystring: Type.Object(PaginationQuery),
      response: { 200: Type.Object({ devices: Type.Array(Device), next_cursor: NextCursor }) },
    },
  }, async (request) => devices.list(request.query));

  app.get('/v1/admin/devices/:device_id', {
    config: { auth: 'admin' },
    schema: { tags: ['Admin'], summary: 'Read a phone', params: DevicePath, response: { 200: Device } },
  }, async (request) => devices.get(request.params.device_id));

  app.patch('/v1/admin/devices/:device_id', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'Change a phone\'s label or send rate',
      params: DevicePath,
      body: Body({ label: Type.Optional(Nullable(Label)), send_rate_per_minute: Type.Optional(SendRate) }),
      response: { 200: Device },
    },
  }, async (request) => devices.update(request.params.device_id, request.body));

  app.delete('/v1/admin/devices/:device_id', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'Remove a phone from the inventory',
      description: 'A phone carrying a cell is 409: release the cell first.',
      params: DevicePath,
      response: { 204: Type.Null() },
    },
  }, async (request, reply) => {
    await devices.remove(request.params.device_id);
    return reply.code(204).send(null);
  });

  app.post('/v1/admin/devices/:device_id/rotate-key', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Admin'],
      summary: 'Issue a new device key',
      description: 'The old key stops working at once; the new one is shown once.',
      params: DevicePath,
      response: { 200: DeviceWithKey },
    },
  }, async (request) => devices.rotateKey(request.params.device_id));

  app.post('/v1/device/heartbeat', {
    config: { auth: 'device' },
    // The body is optional: a bare heartbeat only says "still here".
    preValidation: async (request) => {
      request.body ??= {};
    },
    schema: {
      tags: ['Device'],
      summary: 'Report presence and telemetry; returns the phone\'s configuration',
      body: Body({
        battery_pct: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
        charging: Type.Optional(Type.Boolean()),
        signal_dbm: Type.Optional(Type.Integer({ minimum: -150, maximum: 0 })),
        app_version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      }),
      response: {
        200: Type.Object({
          device_id: Type.String(),
          cell_id: Nullable(Type.String()),
          phone_number: Type.String(),
          send_rate_per_minute: Type.Integer(),
          server_time: Timestamp,
        }),
      },
    },
  }, async (request) => devices.heartbeat(deviceOf(request).deviceId, request.body ?? {}));
}
