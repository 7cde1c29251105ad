// Test helpers for messaging: an active cell with its device, sends, device calls.
import { after, before } from 'node:test';
import { activeOrganization, startApp, type TestApp } from '../harness.ts';
import { createCell } from './cells.ts';
import { addDevice, type TestDevice } from './devices.ts';

export interface Line {
  org: Awaited<ReturnType<typeof activeOrganization>>;
  cell: { id: string; phone_number: string; status: string };
  device: TestDevice;
}

const devicesOf = new WeakMap<TestApp, TestDevice[]>();

/**
 * A new organization (or `org`) with an active cell, carried by a new device. The cell may get
 * an older free device (one a released cell gave back); the line names whichever carries it.
 */
export async function activeLine(
  t: TestApp,
  deviceBody: Record<string, unknown> = {},
  org?: Line['org'],
): Promise<Line> {
  const owner = org ?? (await activeOrganization(t));
  const known = devicesOf.get(t) ?? [];
  devicesOf.set(t, known);
  known.push(await addDevice(t, deviceBody));
  const cell = await createCell(t, owner.headers);
  const device = known.find((d) => d.phoneNumber === cell.phone_number);
  if (cell.status !== 'active' || !device)
    throw new Error(`expected an active cell on a known device: ${JSON.stringify(cell)}`);
  return { org: owner, cell, device };
}

/** Registers before/after hooks for a suite: a fresh app with one active line, closed after. */
export function withLine(ready: (t: TestApp, line: Line) => void, deviceBody: Record<string, unknown> = {}): void {
  let app: TestApp | undefined;
  before(async () => {
    app = await startApp();
    ready(app, await activeLine(app, deviceBody));
  });
  after(() => app?.close());
}

/** The cell a send goes from and the organization sending: a line of any agent. */
type SendingCell = Pick<Line, 'org'> & { cell: { id: string } };

export function send(
  t: TestApp,
  line: SendingCell,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: `/v1/cells/${line.cell.id}/messages/send`,
    headers: { ...line.org.headers, ...headers },
    payload,
  });
}

/** Sends and returns the queued message view (fails the test on anything but 202). */
export async function queued(t: TestApp, line: SendingCell, payload: Record<string, unknown>) {
  const response = await send(t, line, payload);
  if (response.statusCode !== 202) throw new Error(`send failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

export async function claim(t: TestApp, line: Line, query = '') {
  const response = await t.app.inject({ url: `/v1/device/messages/outbound${query}`, headers: line.device.headers });
  if (response.statusCode !== 200) throw new Error(`claim failed: ${response.statusCode} ${response.body}`);
  return response.json().messages as Array<Record<string, unknown> & { id: string }>;
}

// Ids made here carry a prefix no test writes by hand: a test that uploads `sms-42` itself must
// not see a later helper upload answered as its duplicate (the counter is per process, shared by
// every file grouped into it).
let eventCounter = 0;

export function report(t: TestApp, line: Line, messageId: string, body: Record<string, unknown>) {
  eventCounter += 1;
  return t.app.inject({
    method: 'POST',
    url: `/v1/device/messages/${messageId}/events`,
    headers: line.device.headers,
    payload: { event_id: `helper-ev-${eventCounter}`, occurred_at: t.clock.now().toISOString(), ...body },
  });
}

export function inbound(t: TestApp, line: Line, body: Record<string, unknown>) {
  eventCounter += 1;
  return t.app.inject({
    method: 'POST',
    url: '/v1/device/messages/inbound',
    headers: line.device.headers,
    payload: { device_message_id: `helper-sms-${eventCounter}`, received_at: t.clock.now().toISOString(), ...body },
  });
}
