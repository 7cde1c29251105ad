// Message leases: a lease that ran out re-queues its message (or fails it once 3 attempts are
// spent), and a message queued an hour without a claim fails as `expired`. Each step is a
// conditional update, so any number of processes may run this tick at once.
import type { DeliveryService } from '../modules/messages/delivery.ts';

export const MESSAGE_LEASES_INTERVAL_MS = 1000;

export interface MessageLeasesWorker {
  tick(): Promise<{ leases: number; expired: number }>;
}

export function messageLeasesWorker(deps: { delivery: DeliveryService }): MessageLeasesWorker {
  return {
    async tick() {
      const leases = await deps.delivery.expireLeases();
      const expired = await deps.delivery.expireUnclaimed();
      return { leases, expired };
    },
  };
}
