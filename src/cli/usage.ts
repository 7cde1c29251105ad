// What the command-line entry points share and nothing else: the error for a bad command line and
// the check of a numeric flag. Kept free of imports because the single-file device agent
// (GET /v1/device/agent.mjs, bundled from device-agent-entry.ts) carries it: whatever this file
// imported would be bundled onto the phones too.

/** A bad command line: printed as one `cellgate:` line with what to do, exit status 1. */
export class UsageError extends Error {}

/** The value of --`name` as a number from `min` to `max`; a UsageError naming the flag otherwise. */
export function numberFlag(name: string, raw: string | undefined, min: number, max: number): number {
  const value = Number(raw ?? '');
  if ((raw ?? '').trim() === '' || !Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
  return value;
}
