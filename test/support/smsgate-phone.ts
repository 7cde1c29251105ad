// A dual-SIM phone running the SMSGate app, enrolled in a test app: the operator's enrollment,
// the app's registration with two SIM cards, the operator setting the SIMs' numbers (the app
// reports only their last four digits), then the app's settings and webhooks fetched as it does
// after registering. For the end-to-end tests of /mobile/v1 (src/modules/smsgate/e2e.*).
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/lib/clock.ts';
import { admin, type TestApp } from '../harness.ts';
import { uniquePhoneNumber } from './devices.ts';
import { SmsGateApp, type Sim } from './smsgate-app.ts';

export interface Enrollment {
  id: string;
  token: string;
  code: string;
  server_url: string;
  expires_at: string;
  code_expires_at: string;
}

/** POST /v1/admin/devices/enrollments, expected 201. */
export async function enroll(t: TestApp, body: Record<string, unknown> = {}): Promise<Enrollment> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/admin/devices/enrollments',
    headers: admin,
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`enrollment: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** Where the test app listens (it listens on first use): the origin the double reaches. */
export async function listening(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** Two SIMs with fresh numbers, as Android reports them to the app. */
export function twoSims(): Sim[] {
  return [
    { slotIndex: 0, phoneNumber: uniquePhoneNumber(), carrierName: 'T-Mobile', iccid: '8901260222712345678' },
    { slotIndex: 1, phoneNumber: uniquePhoneNumber(), carrierName: 'Mint Mobile', iccid: '8901240197154321098' },
  ];
}

/** A new app double pointed at the enrollment's server URL; the phone's clock is the test's unless given. */
export async function appFor(
  t: TestApp,
  enrollment: Enrollment,
  sims: Sim[] = twoSims(),
  clock: Clock = t.clock,
): Promise<SmsGateApp> {
  return new SmsGateApp({ serverUrl: enrollment.server_url, reach: await listening(t), clock, sims });
}

/** The operator sets each SIM's full number on the device (PATCH /v1/admin/devices/{id}); SIMs without one are left out. */
export async function setSimNumbers(t: TestApp, deviceId: string, sims: Sim[]): Promise<Record<string, unknown>> {
  const response = await t.app.inject({
    method: 'PATCH',
    url: `/v1/admin/devices/${deviceId}`,
    headers: admin,
    payload: { sims: simNumbersOf(sims) },
  });
  if (response.statusCode !== 200) throw new Error(`setting the SIM numbers: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** PATCH's `sims` for the SIMs with a number: what the operator types in (the app numbers SIMs slot + 1). */
export function simNumbersOf(sims: Sim[]): { sim_number: number; phone_number: string }[] {
  return sims.flatMap((sim) =>
    sim.phoneNumber === null ? [] : [{ sim_number: sim.slotIndex + 1, phone_number: sim.phoneNumber }],
  );
}

/**
 * Enrolled, registered with its private token (the app's redacted SIM cards), the numbers set by
 * the operator, settings and webhooks fetched.
 */
export async function readyPhone(t: TestApp, sims: Sim[] = twoSims(), clock: Clock = t.clock): Promise<SmsGateApp> {
  const enrollment = await enroll(t);
  const app = await appFor(t, enrollment, sims, clock);
  const registration = await app.register({ token: enrollment.token });
  await setSimNumbers(t, registration.id, sims);
  await app.fetchSettings();
  await app.fetchWebhooks();
  return app;
}
