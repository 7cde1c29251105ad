// A background loop: runs `tick` every `intervalMs` (never overlapping itself), logs failures and
// keeps going. Started on app ready, stopped on close. Tests call the tick functions directly
// with a manual clock instead (buildApp({ workers: false })).
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Background, Loop } from '../lib/background.ts';

export type { Loop } from '../lib/background.ts';

export function loop(name: string, intervalMs: number, tick: () => Promise<unknown>, log: FastifyBaseLogger): Loop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  let stopped = true;
  const run = () => {
    if (running || stopped) return;
    // Started inside a promise, so even a tick that throws synchronously is caught here (a throw
    // out of a timer callback would end the process). A database outage is expected and retried
    // on the next interval: a warning, not an error.
    running = Promise.resolve()
      .then(tick)
      .catch((error: unknown) => {
        if (isDatabaseUnavailable(error))
          log.warn({ err: error, worker: name }, 'worker tick failed: database unavailable; retrying');
        else log.error({ err: error, worker: name }, 'worker tick failed');
      })
      .finally(() => {
        running = null;
      });
  };
  return {
    start() {
      stopped = false;
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** A module's background work as a loop: a Periodic runs on this generic loop, a Loop as it is. */
export function asLoop(background: Background, log: FastifyBaseLogger): Loop {
  return 'tick' in background ? loop(background.name, background.intervalMs, () => background.tick(), log) : background;
}
