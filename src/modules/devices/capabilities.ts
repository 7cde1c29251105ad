// What a phone can do (contract §4): it states this in its heartbeat, the device row keeps the
// last statement, and the cell shows its phone's. The Termux agent cannot report delivery nor
// send or receive MMS; the simulator and the Android app can do everything.
import { Type } from 'typebox';
import type { DevicesTable } from './tables.ts';

export interface Capabilities {
  delivery_reports: boolean;
  mms_send: boolean;
  mms_receive: boolean;
}

/** A heartbeat's statement: a capability left out is taken as true. */
export type StatedCapabilities = Partial<Capabilities>;

export type CapabilityColumns = Pick<DevicesTable, 'can_delivery_reports' | 'can_mms_send' | 'can_mms_receive'>;

/** What a phone that never stated anything, or a cell without a phone, shows. */
export const ALL_CAPABILITIES: Readonly<Capabilities> = Object.freeze({
  delivery_reports: true,
  mms_send: true,
  mms_receive: true,
});

/** The SMSGate app (contract §13): delivery reports and MMS receive, but it sends no MMS. */
export const SMSGATE_CAPABILITIES: Readonly<Capabilities> = Object.freeze({
  delivery_reports: true,
  mms_send: false,
  mms_receive: true,
});

const flag = (stated: boolean | undefined) => (stated === false ? 0 : 1);

export function capabilityColumns(stated: StatedCapabilities): CapabilityColumns {
  return {
    can_delivery_reports: flag(stated.delivery_reports),
    can_mms_send: flag(stated.mms_send),
    can_mms_receive: flag(stated.mms_receive),
  };
}

/** The view of stored columns; null columns (a left join that found no phone) read as true. */
export function capabilitiesView(row: { [K in keyof CapabilityColumns]: number | null }): Capabilities {
  return {
    delivery_reports: row.can_delivery_reports !== 0,
    mms_send: row.can_mms_send !== 0,
    mms_receive: row.can_mms_receive !== 0,
  };
}

const DESCRIPTIONS = {
  delivery_reports: 'Reports `delivered` (carrier delivery reports). Without it a sent message stays `sent`.',
  mms_send: 'Sends MMS: a send with media_urls from a cell whose phone cannot is 409 mms_unsupported.',
  mms_receive: 'Receives MMS: texts with media arrive with their media_urls.',
};

/** The capabilities shown on a Cell and a Device. */
export const CapabilitiesSchema = Type.Object(
  {
    delivery_reports: Type.Boolean({ description: DESCRIPTIONS.delivery_reports }),
    mms_send: Type.Boolean({ description: DESCRIPTIONS.mms_send }),
    mms_receive: Type.Boolean({ description: DESCRIPTIONS.mms_receive }),
  },
  {
    $id: 'Capabilities',
    description:
      'What the phone carrying the line can do, as it last stated in its heartbeat; all true until it states otherwise (and for a cell without a phone).',
    examples: [{ ...ALL_CAPABILITIES }],
  },
);

/** The heartbeat's `capabilities`: each optional (left out = true), unknown keys refused. */
export const StatedCapabilitiesBody = Type.Object(
  {
    delivery_reports: Type.Optional(Type.Boolean({ description: DESCRIPTIONS.delivery_reports })),
    mms_send: Type.Optional(Type.Boolean({ description: DESCRIPTIONS.mms_send })),
    mms_receive: Type.Optional(Type.Boolean({ description: DESCRIPTIONS.mms_receive })),
  },
  {
    additionalProperties: false,
    description:
      'What this phone can do; a capability left out is taken as true. Sent with every heartbeat; a heartbeat without it keeps what was last stated.',
  },
);
