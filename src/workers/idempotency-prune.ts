// Idempotency keys are kept 24 hours (contract §2); expired records are deleted. Every process
// runs it; the deletes are idempotent.
export const IDEMPOTENCY_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
