// A listening app (real sockets: the simulator long-polls over HTTP like a phone) with helpers to
// add a phone, a cell on it, and a simulated device for that phone.
import { addDevice, type TestDevice } from '../support/devices.ts';
import {
  startSimulatedDevice,
  type DeviceEvent,
  type SimulatedDevice,
  type SimulatorOptions,
} from '../../src/cli/device-simulator.ts';
import { activeOrganization, startApp, type TestApp } from '../harness.ts';

export interface World {
  t: TestApp;
  baseUrl: string;
  org: Awaited<ReturnType<typeof activeOrganization>>;
  /** A phone (send rate 30 segments/min unless told) and a new cell of the organization on it. */
  cell(deviceBody?: Record<string, unknown>): Promise<{ cellId: string; phoneNumber: string; device: TestDevice }>;
  /** A simulated device with test defaults (no delay, 1 s polls, silent, the app's clock), stopped on close. */
  simulate(device: TestDevice, options?: Partial<SimulatorOptions>): Promise<SimulatedDevice>;
  /** Queues a message from the cell (202) and returns its id. */
  send(cellId: string, to: string, body: string): Promise<string>;
  message(cellId: string, messageId: string): Promise<Record<string, unknown> & { status: string }>;
  close(): Promise<void>;
}

export async function listeningWorld(): Promise<World> {
  const t = await startApp();
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const org = await activeOrganization(t);
  const devices: SimulatedDevice[] = [];
  let sends = 0;
  return {
    t,
    baseUrl: address,
    org,
    async cell(deviceBody = {}) {
      const device = await addDevice(t, { send_rate_per_minute: 30, ...deviceBody });
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/cells',
        headers: org.headers,
        payload: { display_name: 'simulated' },
      });
      if (response.statusCode !== 201) throw new Error(`cell create failed: ${response.statusCode} ${response.body}`);
      const cell = response.json();
      if (cell.phone_number !== device.phoneNumber)
        throw new Error(`the cell got ${cell.phone_number}, not the new phone ${device.phoneNumber}`);
      return { cellId: cell.id, phoneNumber: cell.phone_number, device };
    },
    async simulate(device, options = {}) {
      const simulated = await startSimulatedDevice({
        baseUrl: address,
        key: device.key,
        deliveryDelayMs: 0,
        pollWaitSeconds: 1,
        logger: () => {},
        now: () => t.clock.now(),
        ...options,
      });
      devices.push(simulated);
      return simulated;
    },
    async send(cellId, to, body) {
      sends += 1;
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/cells/${cellId}/messages/send`,
        headers: { ...org.headers, 'idempotency-key': `simulator-test-${sends}` },
        payload: { to, body },
      });
      if (response.statusCode !== 202) throw new Error(`send failed: ${response.statusCode} ${response.body}`);
      return response.json().id as string;
    },
    async message(cellId, messageId) {
      const response = await t.app.inject({ url: `/v1/cells/${cellId}/messages/${messageId}`, headers: org.headers });
      if (response.statusCode !== 200) throw new Error(`read failed: ${response.statusCode} ${response.body}`);
      return response.json();
    },
    async close() {
      await Promise.all(devices.map((d) => d.stop()));
      await t.close();
    },
  };
}

/** Collects the reports the service accepted from simulated devices; waits for a given one. */
export class Reports {
  private readonly seen = new Map<string, DeviceEvent[]>();
  private readonly waiters: { id: string; event: DeviceEvent; done: () => void }[] = [];

  readonly record = (id: string, event: DeviceEvent): void => {
    this.seen.set(id, [...(this.seen.get(id) ?? []), event]);
    for (const waiter of this.waiters.filter((w) => w.id === id && w.event === event)) waiter.done();
  };

  of(id: string): DeviceEvent[] {
    return this.seen.get(id) ?? [];
  }

  /** Resolves once `event` was accepted for message `id`; rejects after `ms` of real time. */
  async until(id: string, event: DeviceEvent, ms = 20_000): Promise<void> {
    if (this.of(id).includes(event)) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((done) => this.waiters.push({ id, event, done })),
        new Promise<never>(
          (_, reject) =>
            (timer = setTimeout(
              () =>
                reject(
                  new Error(`no ${event} report for ${id} within ${ms} ms; saw ${this.of(id).join(',') || 'nothing'}`),
                ),
              ms,
            )),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
