// The device inventory's operator operations (src/operations): bound to the admin REST routes
// (./routes.ts) and called by the operator console. The service records pause, resume, release
// and key rotation in the operator audit log, in the action's transaction.
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { Body } from '../../http/schemas.ts';
import { defineOperatorOperation } from '../../operations/operation.ts';
import type { DevicesService } from './service.ts';
import {
  Device,
  DEVICE_EXAMPLE,
  DeviceList,
  DeviceSettings,
  DeviceWithKey,
  HeartbeatList,
  HeartbeatsQuery,
  Reason,
  SimNumbers,
} from './routes.ts';

const DeviceId = Type.String({ minLength: 1, maxLength: 64, description: 'dev_... id' });

/** The operator's holds: the summary and what a 409 conflict means, per action. */
const HOLDS = {
  pause: ['pause_device', 'Pause a phone: it claims nothing until resumed', 'The phone is already paused.'],
  resume: ['resume_device', 'Resume a paused phone', 'The phone is not paused.'],
  release: [
    'release_device',
    'Release a quarantined (or degraded) phone back to healthy',
    'The phone is healthy. Failures before the release no longer count towards its health.',
  ],
} as const;

function holdOperation(devices: DevicesService, action: keyof typeof HOLDS) {
  const [name, summary, conflict] = HOLDS[action];
  return defineOperatorOperation({
    name,
    summary,
    description: `Recorded in the operator audit log with the reason. 409 conflict: ${conflict}`,
    errors: ['conflict'],
    input: Body(
      { device_id: DeviceId, reason: Reason },
      { examples: [{ device_id: DEVICE_EXAMPLE.id, reason: 'SIM swap in slot 3' }] },
    ),
    output: Device,
    run: (ctx, input) => devices[action](input.device_id, { actor: ctx.principal, reason: input.reason }),
  });
}

export function deviceOperations(devices: DevicesService) {
  return {
    createDevice: defineOperatorOperation({
      name: 'create_device',
      summary: 'Add a phone to the inventory',
      description:
        'Returns the device key once. A cell waiting in provisioning gets the phone at once. Recorded in the operator audit log.',
      status: 201,
      errors: ['conflict'],
      input: Body(
        {
          phone_number: Type.String({
            minLength: 1,
            maxLength: 32,
            description: 'International format, e.g. +14155552671; stored in E.164.',
          }),
          ...DeviceSettings,
        },
        {
          examples: [{ phone_number: '+14155550123', label: 'Rack A, slot 3', send_rate_per_minute: 20 }],
        },
      ),
      output: DeviceWithKey,
      run: (ctx, input) => devices.create(input, { actor: ctx.principal }),
    }),
    listDevices: defineOperatorOperation({
      name: 'list_devices',
      summary: 'List phones, newest first',
      description: '',
      input: Type.Object(PaginationQuery),
      output: DeviceList,
      run: (_ctx, input) => devices.list(input),
    }),
    getDevice: defineOperatorOperation({
      name: 'get_device',
      summary: 'Read a phone',
      description: '',
      input: Type.Object({ device_id: DeviceId }),
      output: Device,
      run: (_ctx, input) => devices.get(input.device_id),
    }),
    updateDevice: defineOperatorOperation({
      name: 'update_device',
      summary: "Change a phone's label, send rate, daily limit or a SIM line's number",
      description:
        "Recorded in the operator audit log with the changes. sims sets SIM lines' numbers (the SMSGate app reports them redacted): a line the phone reported (400 unknown_sim otherwise), a valid E.164 number (400), carried by no other phone or line (409 phone_number_taken), on a line that carries no cell yet (409 line_carries_cell). A line given a number can carry a cell: a cell waiting for a phone takes it at once.",
      errors: ['conflict'],
      input: Body(
        {
          device_id: DeviceId,
          ...DeviceSettings,
          sims: Type.Optional(SimNumbers),
        },
        {
          examples: [
            { device_id: DEVICE_EXAMPLE.id, send_rate_per_minute: 30 },
            { device_id: DEVICE_EXAMPLE.id, sims: [{ sim_number: 2, phone_number: '+14155550124' }] },
          ],
        },
      ),
      output: Device,
      run: (ctx, { device_id, ...changes }) => devices.update(device_id, changes, { actor: ctx.principal }),
    }),
    deleteDevice: defineOperatorOperation({
      name: 'delete_device',
      summary: 'Remove a phone from the inventory',
      description: 'A phone carrying a cell is 409: release the cell first. Recorded in the operator audit log.',
      status: 204,
      errors: ['conflict'],
      input: Type.Object({ device_id: DeviceId }),
      output: Type.Null(),
      run: (ctx, input) => devices.remove(input.device_id, { actor: ctx.principal }).then(() => null),
    }),
    listDeviceHeartbeats: defineOperatorOperation({
      name: 'list_device_heartbeats',
      summary: "Read a phone's heartbeat history, newest first",
      description:
        'Battery, charging and signal as the phone reported them; at most one entry per minute (the first heartbeat of the minute), kept 7 days.',
      input: Type.Object({ device_id: DeviceId, ...HeartbeatsQuery }),
      output: HeartbeatList,
      run: (_ctx, { device_id, ...query }) => devices.heartbeats(device_id, query),
    }),
    pauseDevice: holdOperation(devices, 'pause'),
    resumeDevice: holdOperation(devices, 'resume'),
    releaseDevice: holdOperation(devices, 'release'),
    rotateDeviceKey: defineOperatorOperation({
      name: 'rotate_device_key',
      summary: 'Issue a new device key',
      description:
        'The old key stops working at once; the new one is shown once. Recorded in the operator audit log, with the optional reason.',
      input: Body({ device_id: DeviceId, reason: Type.Optional(Reason) }),
      output: DeviceWithKey,
      run: (ctx, input) => devices.rotateKey(input.device_id, { actor: ctx.principal, reason: input.reason ?? null }),
    }),
  };
}

export type DeviceOperations = ReturnType<typeof deviceOperations>;
