// The SMSGate app's door (contract §13): maps the app's calls onto the same services the native
// device surface calls (claims, reports and inbound texts in messages/, presence and heartbeats in
// devices/), so one set of rules serves both protocols. Nothing here decides a message's fate.
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { Static } from 'typebox';
import { ApiError, invalidField } from '../../lib/errors.ts';
import { checkTextSafety } from '../../operations/text-safety.ts';
import { compileBody } from '../../operations/validate.ts';
import type { Clock } from '../../lib/clock.ts';
import { normalizePhone } from '../../lib/phone.ts';
import type { DevicesService, Phone, SimLine } from '../devices/service.ts';
import type { EnrollmentCredential, EnrollmentsService } from '../devices/enrollments.ts';
import type { DeliveryService } from '../messages/delivery.ts';
import type { InboundService } from '../messages/inbound.ts';
import type { DeviceReport } from '../messages/lifecycle.ts';
import type { ClaimOrder } from '../messages/repository.ts';
import {
  appMessage,
  DevicePatchRequest,
  MAX_SIM_LINES,
  MessagePatchRequest,
  RegisterRequest,
  settingsMap,
  STATE_EVENTS,
  webhookList,
  WebhookBody,
  type SimCard,
} from './protocol.ts';
import { headerProblem, signatureProblem } from './signature.ts';

export interface SmsgateLog {
  warn(details: object, message: string): void;
}

type StateReport = Static<typeof MessagePatchRequest>[number];

/**
 * The webhook body's check, by the Ajv that validates every request body (compiled on the first
 * webhook): TypeBox's own checker (typebox/value) is some 300 modules and 3 MB more at start.
 */
const isWebhookBody = (body: unknown) =>
  (compileBody(WebhookBody) as ValidateFunction<Static<typeof WebhookBody>>)(body);

const unsigned = (detail: string) => new ApiError('unauthenticated', detail);

/** `Bearer <enrollment token>` or `Code <6 digits>` (GatewayApi.kt deviceRegister). */
export function enrollmentCredential(header: string | undefined): EnrollmentCredential {
  const bearer = header && /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header);
  if (bearer) return { kind: 'token', token: bearer[1] };
  const code = header && /^Code ([\x21-\x7e]{1,64})$/i.exec(header);
  if (code) return { kind: 'code', code: code[1] };
  throw new ApiError(
    'unauthenticated',
    'Sign in with "Authorization: Bearer <private token>" or "Authorization: Code <code>" from an enrollment.',
  );
}

/** An app date (GsonBuilder.kt: ISO 8601 with milliseconds and offset) as ISO UTC; a bad one is a 400. */
function appDate(field: string, text: string): string {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw invalidField(field, 'invalid_format', `${field} must be an ISO 8601 date.`);
  return new Date(ms).toISOString();
}

export type SmsgateDeps = {
  devices: DevicesService;
  enrollments: EnrollmentsService;
  delivery: DeliveryService;
  inbound: InboundService;
  clock: Clock;
  serverUrl: string;
  log: SmsgateLog;
};

export class SmsgateService {
  private readonly deps: SmsgateDeps;

  constructor(deps: SmsgateDeps) {
    this.deps = deps;
  }

  /** Before the sign-in's body is read: 401 unless the header names a valid enrollment. */
  verifyEnrollment(authorization: string | undefined): Promise<void> {
    return this.deps.enrollments.verify(enrollmentCredential(authorization));
  }

  /** Before a webhook's body is read: 401 for missing, malformed or stale signature headers. */
  checkSignatureHeaders(headers: { signature: unknown; timestamp: unknown }): void {
    const problem = headerProblem(headers, this.deps.clock.now().getTime());
    if (problem) throw unsigned(problem);
  }

  async register(authorization: string | undefined, body: Static<typeof RegisterRequest>) {
    const { lines, ignored } = simLines(body.simCards ?? []);
    const credential = enrollmentCredential(authorization);
    const registered = await this.deps.enrollments.register(credential, { ...body, sims: lines });
    this.warnIgnored(registered.id, ignored);
    return registered;
  }

  /** SIM cards beyond the first two get no line: the operator reads which in the log. */
  private warnIgnored(deviceId: string, sims: readonly number[]): void {
    if (sims.length === 0) return;
    this.deps.log.warn(
      { device_id: deviceId, ignored_sim_numbers: sims },
      `SMSGate phone ${deviceId} reported ${MAX_SIM_LINES + sims.length} SIM cards: Cellgate serves the first ${MAX_SIM_LINES}, SIM ${sims.join(', ')} carries no line (take out the card that should not be served).`,
    );
  }

  /** The device behind an `Authorization: Bearer <device token>` header; 401 otherwise. */
  async authenticate(authorization: string): Promise<string> {
    const token = /^Bearer (cg_dev_[0-9A-Za-z]{1,64})$/.exec(authorization)?.[1];
    const principal = token ? await this.deps.devices.authenticate(token) : null;
    if (!principal) throw new ApiError('unauthenticated', 'The device token is unknown or was rotated.');
    return principal.deviceId;
  }

  private async phone(deviceId: string) {
    const phone = await this.deps.devices.phone(deviceId);
    if (!phone) throw new ApiError('unauthenticated', 'The device was removed from the inventory.');
    return phone;
  }

  /** GET /device (handlers/mobile.go getDevice): the caller's address, and the device. */
  async deviceInfo(deviceId: string | null, ip: string) {
    if (!deviceId) return { externalIp: ip, device: null };
    const { device, sims } = await this.phone(deviceId);
    return {
      externalIp: ip,
      device: {
        id: device.id,
        name: device.label,
        simCards: sims.map((sim) => ({
          slotIndex: sim.slot,
          simNumber: sim.sim_number,
          phoneNumber: sim.phone_number,
          carrierName: sim.carrier,
          iccid: sim.iccid,
        })),
        createdAt: device.created_at,
        updatedAt: device.updated_at,
        lastSeen: device.last_seen_at,
      },
    };
  }

  async patchDevice(deviceId: string, body: Static<typeof DevicePatchRequest>) {
    const cards = body.simCards ? simLines(body.simCards) : null;
    await this.deps.devices.saveAppState(deviceId, { pushToken: body.pushToken, sims: cards?.lines });
    if (cards) this.warnIgnored(deviceId, cards.ignored);
  }

  /** GET /message: claims under the native surface's rules, in the order asked, answered as the app's Message list. */
  async claim(deviceId: string, order: ClaimOrder, hangUp: AbortSignal) {
    const messages = await this.deps.delivery.claimRows(deviceId, 10, 0, hangUp, order);
    if (messages.length === 0) return [];
    // Each message goes out on the SIM line of its own cell (two SIMs, two cells: contract §13).
    const { sims } = await this.phone(deviceId);
    const lineOf = new Map(sims.map((sim) => [sim.cell_id, sim.sim_number] as const));
    return messages.map((message) => appMessage(message, lineOf.get(message.cell_id) ?? null));
  }

  /**
   * PATCH /message: each state moves its message as the native report does (a repeat changes
   * nothing: the event id is the message and the state). The whole list is checked first; a
   * message this phone does not hold is left as it is and reported in the log, as the app's own
   * server does. Answers which ids were not applied.
   */
  async reportStates(deviceId: string, items: readonly StateReport[]) {
    const now = this.deps.clock.now().toISOString();
    const planned = items.map((item, i) => ({ id: item.id, reports: this.reportsOf(item, i, now) }));
    const skipped: { id: string; reason: string }[] = [];
    for (const { id, reports } of planned) {
      for (const report of reports) {
        try {
          await this.deps.delivery.report(deviceId, id, { event_id: `smsgate:${id}:${report.event}`, ...report });
        } catch (error) {
          if (!(error instanceof ApiError) || (error.code !== 'not_found' && error.code !== 'conflict')) throw error;
          skipped.push({ id, reason: error.message });
          this.deps.log.warn(
            { device_id: deviceId, message_id: id, reason: error.message },
            'SMSGate state report ignored',
          );
          break;
        }
      }
    }
    return skipped;
  }

  /** The report an app state makes (none for Pending and cancelling): Delivered carries the Sent time, so sent_at is the phone's. */
  private reportsOf(item: StateReport, index: number, now: string): DeviceReport[] {
    const event = STATE_EVENTS[item.state];
    if (!event) return [];
    const at = (state: string) => {
      const text = item.states?.[state];
      return text === undefined ? null : appDate(`${index}.states.${state}`, text);
    };
    const occurredAt = at(item.state) ?? now;
    if (event === 'failed') {
      const error = item.recipients?.find((r) => r.error)?.error ?? undefined;
      return [{ event, occurredAt, errorCode: 'device_error', errorMessage: error?.slice(0, 500) }];
    }
    if (event === 'delivered') {
      const sentAt = at('Sent');
      return [sentAt ? { event, occurredAt, sentAt } : { event, occurredAt }];
    }
    return [{ event, occurredAt }];
  }

  async settings(deviceId: string) {
    return settingsMap((await this.phone(deviceId)).device);
  }

  webhooks() {
    return webhookList(this.deps.serverUrl);
  }

  /**
   * A webhook the app posts (WebHookEventDTO): refused (401) unless signed by the phone it names
   * within 5 minutes, then applied once per message. The signature is checked right after the
   * JSON is parsed (its key is the phone's that the body names), before the body's shape: a caller
   * without the key learns nothing of it.
   */
  async webhook(raw: string, headers: { signature: unknown; timestamp: unknown }) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = null;
    }
    const deviceId = (parsed as { deviceId?: unknown } | null)?.deviceId;
    const phone =
      typeof deviceId === 'string' && deviceId.length <= 64 ? await this.deps.devices.phone(deviceId) : undefined;
    // One answer for an unknown phone, a body naming none and a bad signature: nothing tells which ids exist.
    if (!phone?.device.signing_key) throw unsigned('The webhook is not signed by a known phone.');
    const problem = signatureProblem(phone.device.signing_key, raw, headers, this.deps.clock.now().getTime());
    if (problem) throw unsigned(problem);
    checkTextSafety(raw, parsed);
    if (!isWebhookBody(parsed))
      throw new ApiError(
        'invalid_request',
        'The webhook body is not an SMSGate webhook event (id, event, deviceId, payload).',
      );
    await this.deps.devices.markSeen(phone.device.id);
    return this.apply(phone, parsed.id, parsed.event, parsed.payload);
  }

  private async apply(phone: Phone, eventId: string, event: string, payload: Record<string, unknown>): Promise<void> {
    const deviceId = phone.device.id;
    switch (event) {
      case 'sms:received':
      case 'mms:received': {
        this.requireCellLine(phone, payload.simNumber);
        const sender = text(payload, 'sender') ?? text(payload, 'phoneNumber');
        const receivedAt = text(payload, 'receivedAt');
        if (!sender || !receivedAt) throw invalidField('payload', 'required', 'payload needs sender and receivedAt.');
        const body =
          event === 'sms:received'
            ? (text(payload, 'message') ?? '')
            : mmsNotice(text(payload, 'subject'), typeof payload.size === 'number' ? payload.size : null);
        if (body.length > 1600)
          throw invalidField('payload.message', 'too_long', 'payload.message is over 1600 characters.');
        const at = appDate('payload.receivedAt', receivedAt);
        const key = inboundKey(event, text(payload, 'messageId'), at, eventId, `${sender}\n${body}`);
        const simNumber = typeof payload.simNumber === 'number' ? payload.simNumber : null;
        await this.deps.inbound.receive(
          deviceId,
          { device_message_id: key, from: sender, body, received_at: at },
          simNumber,
        );
        return;
      }
      case 'sms:sent':
      case 'sms:delivered':
      case 'sms:failed': {
        const messageId = text(payload, 'messageId');
        if (!messageId) throw invalidField('payload.messageId', 'required', 'payload.messageId is required.');
        const state = ({ 'sms:sent': 'Sent', 'sms:delivered': 'Delivered', 'sms:failed': 'Failed' } as const)[event];
        const at = text(payload, `${state.toLowerCase()}At`); // sentAt, deliveredAt, failedAt
        const reason = text(payload, 'reason');
        const skipped = await this.reportStates(deviceId, [
          {
            id: messageId,
            state,
            states: at ? { [state]: at } : {},
            recipients: reason ? [{ phoneNumber: '', state, error: reason }] : [],
          },
        ]);
        if (skipped.length > 0) throw new ApiError('conflict', skipped[0].reason);
        return;
      }
      case 'system:ping': {
        await this.deps.devices.heartbeat(deviceId, pingTelemetry(payload));
        return;
      }
      default:
        throw invalidField('event', 'unsupported', `Cellgate does not take ${event} webhooks.`);
    }
  }

  /**
   * The SIM line a text came in on must carry a cell: an unknown SIM is a 400, a line without a
   * cell a 409 that stores nothing. The number is not learnt from the payload's recipient
   * (docs/decisions.md): a line's number comes from the operator, or from a full number at sign-in.
   */
  private requireCellLine(phone: Phone, simNumber: unknown): void {
    if (simNumber === undefined || simNumber === null) return;
    const line = phone.sims.find((sim) => sim.sim_number === simNumber);
    if (!line)
      throw invalidField(
        'payload.simNumber',
        'unknown_sim',
        `The phone has no SIM line ${String(simNumber)}: Cellgate keeps a line for each of the first ${MAX_SIM_LINES} SIM cards the phone reports.`,
      );
    if (line.cell_id !== null) return;
    const message =
      line.phone_number === null
        ? `SIM ${line.sim_number} of this phone has no known number (the app reports it redacted), so it carries no cell and the text was not stored: the operator sets the number with PATCH /v1/admin/devices/${line.device_id}.`
        : `SIM ${line.sim_number} of this phone (${line.phone_number}) carries no cell yet, so the text was not stored.`;
    throw new ApiError('conflict', message, {
      errors: [{ field: 'payload.simNumber', code: 'line_without_cell', message }],
    });
  }
}

/**
 * The inbound dedup key of a received text. Not the envelope id: the same text posted by a second
 * webhook registration, or after a reinstall, comes in a new envelope. The payload's messageId is
 * the same each time (receiver/ReceiverService.kt: a 32-bit hash of the inbox message), so the
 * receive time and a digest of sender and text keep colliding hashes apart. Without a messageId,
 * the envelope id.
 */
function inboundKey(
  event: string,
  messageId: string | null,
  receivedAt: string,
  eventId: string,
  content: string,
): string {
  if (messageId === null) return `${event}:event:${eventId}`;
  if (messageId.length > 200)
    throw invalidField('payload.messageId', 'too_long', 'payload.messageId is over 200 characters.');
  const digest = createHash('sha256').update(content).digest('base64url').slice(0, 16);
  return `${event}:${messageId}:${receivedAt}:${digest}`;
}

/**
 * The app's SIM cards as lines, the first two by SIM number (the SIM numbers of the others, which
 * get none, are `ignored`): numbers in E.164, null where Android gave none or the app redacted it
 * ("********0123"); what the app showed then is kept as reported_number.
 */
function simLines(cards: readonly SimCard[]): { lines: SimLine[]; ignored: number[] } {
  const sorted = [...cards].sort((a, b) => a.simNumber - b.simNumber);
  const lines = sorted.slice(0, MAX_SIM_LINES).map((card, i) => {
    if (i > 0 && sorted[i - 1].simNumber === card.simNumber)
      throw invalidField('simCards', 'duplicate', 'Two SIM cards share a simNumber.');
    const shown = card.phoneNumber?.trim() ?? '';
    const number = shown === '' ? null : normalizePhone(shown);
    return {
      sim_number: card.simNumber,
      slot: card.slotIndex,
      phone_number: number,
      reported_number: number === null && shown !== '' ? shown : null,
      carrier: card.carrierName ?? null,
      iccid: card.iccid ?? null,
    };
  });
  return { lines, ignored: sorted.slice(MAX_SIM_LINES).map((card) => card.simNumber) };
}

function text(payload: Record<string, unknown>, key: string): string | null {
  const value = payload[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function mmsNotice(subject: string | null, size: number | null): string {
  const about = [subject ? `"${subject}"` : null, size !== null ? `${size} bytes` : null].filter(Boolean).join(', ');
  return `[MMS received${about ? `: ${about}` : ''}; its content stays on the phone]`;
}

/** system:ping's health (domain/HealthResponse.kt, health/monitors/BatteryMonitor.kt) as a heartbeat. */
export function pingTelemetry(payload: Record<string, unknown>) {
  const health = (payload.health ?? {}) as { checks?: Record<string, { observedValue?: unknown }>; version?: unknown };
  const observed = (name: string) => {
    const value = health.checks?.[name]?.observedValue;
    return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
  };
  const level = observed('battery:level');
  const flags = observed('battery:charging');
  return {
    ...(level !== undefined && level >= 0 && level <= 100 ? { battery_pct: level } : {}),
    ...(flags !== undefined ? { charging: (flags & 1) === 1 } : {}),
    ...(typeof health.version === 'string' && health.version.length <= 64 && health.version !== ''
      ? { app_version: health.version }
      : {}),
  };
}
