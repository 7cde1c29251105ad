// The phone's own pacing (docs/device-protocol.md, Pacing): SMS segments per 60 s as the server
// counts them, and a random pause between sends. Timers are mocked: no real time passes.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { SendPacer } from './device-driver.ts';

/** A pacer on mocked timers whose clock is the mocked Date; `done` resolves each take. */
function mocked() {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  return {
    tick: (ms: number) => mock.timers.tick(ms),
    restore: () => mock.timers.reset(),
  };
}

async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('SendPacer', () => {
  it('counts segments in the 60 s window and waits until enough leave it', async () => {
    const timers = mocked();
    try {
      const pacer = new SendPacer(() => Date.now());
      await pacer.take(10, 4);
      await pacer.take(10, 4);
      const third = pacer.take(10, 4); // 12 > 10: waits for the first to leave the window
      assert.equal(await settled(third), false);
      timers.tick(59_999);
      assert.equal(await settled(third), false);
      timers.tick(1);
      assert.equal(await settled(third), true);
    } finally {
      timers.restore();
    }
  });

  it('lets a text longer than the budget go alone in an empty window', async () => {
    const timers = mocked();
    try {
      const pacer = new SendPacer(() => Date.now());
      await pacer.take(3, 8);
      const next = pacer.take(3, 1);
      assert.equal(await settled(next), false);
      timers.tick(60_000);
      assert.equal(await settled(next), true);
    } finally {
      timers.restore();
    }
  });

  it('pauses a random time in [min, max] after the previous send', async () => {
    const timers = mocked();
    try {
      const pacer = new SendPacer(
        () => Date.now(),
        { min: 2_000, max: 8_000 },
        () => 0.5,
      );
      await pacer.take(30, 1); // the first send does not wait
      const second = pacer.take(30, 1);
      timers.tick(4_999);
      assert.equal(await settled(second), false);
      timers.tick(1);
      assert.equal(await settled(second), true, 'waited 2 s + 0.5 × 6 s');
      timers.tick(10_000);
      assert.equal(await settled(pacer.take(30, 1)), true, 'a send long after the last does not wait');
    } finally {
      timers.restore();
    }
  });
});
