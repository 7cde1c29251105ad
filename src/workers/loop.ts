// A background loop: runs `tick` every `intervalMs` (never overlapping itself), logs failures and
// keeps going. Started on app ready, stopped on close. Tests call the tick functions directly
// with a manual clock instead (buildApp({ workers: false })).
import type { FastifyBaseLogger } from 'fastify';

export interface Loop {
  start(): void;
  stop(): Promise<void>;
}

export function loop(name: string, intervalMs: number, tick: () => Promise<unknown>, log: FastifyBaseLogger): Loop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  let stopped = true;
  const run = () => {
    if (running || stopped) return;
    running = tick()
      .catch((error: unknown) => log.error({ err: error, worker: name }, 'worker tick failed'))
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
