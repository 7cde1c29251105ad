import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listeningWorld, Reports, type World } from './support.ts';

const MESSAGES_PER_CELL = 20;

describe('concurrent simulated devices', () => {
  let world: World;
  before(async () => {
    world = await listeningWorld();
  });
  after(() => world.close());

  it('two phones, each polled by two apps with three loops, claim every message exactly once and deliver all', async () => {
    const cells = [await world.cell(), await world.cell()];
    const reports = new Reports();
    const claims = new Map<string, string[]>(); // message id → device ids that claimed it
    for (const cell of cells) {
      for (let app = 0; app < 2; app += 1) {
        await world.simulate(cell.device, {
          pollers: 3,
          claimLimit: 2,
          onReport: reports.record,
          onClaim: (message) => claims.set(message.id, [...(claims.get(message.id) ?? []), cell.device.id]),
        });
      }
    }

    // Sends race the twelve pollers: queued while they wait, claimed as they wake.
    const sent: { id: string; cellId: string; deviceId: string }[] = [];
    for (let i = 0; i < MESSAGES_PER_CELL; i += 1) {
      for (const cell of cells) {
        sent.push({
          id: await world.send(cell.cellId, '+14155550130', `race ${i}`),
          cellId: cell.cellId,
          deviceId: cell.device.id,
        });
      }
    }
    await Promise.all(sent.map((m) => reports.until(m.id, 'delivered', 20_000)));

    assert.equal(claims.size, sent.length);
    for (const message of sent) {
      assert.deepEqual(
        claims.get(message.id),
        [message.deviceId],
        `${message.id} claimed by ${claims.get(message.id)?.join(',')}`,
      );
      assert.deepEqual(reports.of(message.id), ['sent', 'delivered']);
      assert.equal((await world.message(message.cellId, message.id)).status, 'delivered');
    }
  });
});
