// The composition root refuses to start while a module's port is unwired: every wire of
// wirePorts() is left out in turn, and buildApp rejects naming that port (no silent default, such
// as free sends or no webhook fan-out).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from './app.ts';
import type { Wire } from './lib/ports.ts';
import { useApp } from '../test/harness.ts';

const EXPECTED_PORTS = [
  'devices.hooks',
  'devices.operatorEvents',
  'cells.released',
  'delivery.outcomes',
  'events.emitted',
  'cells.admission',
  'messages.charges',
  'delivery.charges',
  'scheduled sends.charges',
  'pods.sendRefusals',
  'messages.ignores',
  'inbound.ignores',
  'organizations.accessTokens',
];

describe('start-up check of module ports', () => {
  const t = useApp();

  const build = (wires: (all: readonly Wire[]) => readonly Wire[]) =>
    buildApp({
      config: t.config,
      database: t.database,
      clock: t.clock,
      mailer: t.mail,
      logger: false,
      workers: false,
      wires,
    });

  it('wires every cross-module port in one table', async () => {
    let labels: string[] = [];
    const { app } = await build((all) => {
      labels = all.map((line) => line.port);
      return all;
    });
    await app.close();
    assert.deepEqual([...labels].sort(), [...EXPECTED_PORTS].sort());
  });

  for (const port of EXPECTED_PORTS) {
    it(`refuses to start when ${port} is left unwired, naming it`, async () => {
      await assert.rejects(
        build((all) => all.filter((line) => line.port !== port)),
        (error: Error) => {
          assert.equal(error.message, `Cellgate cannot start: port ${port} not wired (src/app.ts wirePorts()).`);
          return true;
        },
      );
    });
  }

  it('names every port left unwired when several are', async () => {
    await assert.rejects(
      build(() => []),
      (error: Error) => {
        assert.match(error.message, /^Cellgate cannot start: ports /);
        for (const port of EXPECTED_PORTS) assert.ok(error.message.includes(port), `${port} named`);
        return true;
      },
    );
  });
});
