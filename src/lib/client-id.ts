// client_id on creates (contract §2): unique per organization and resource type, forever. The
// first create stores the hash of its canonical body; a repeat with the same body gets the
// existing resource back, a repeat with another body is 409 client_id_conflict.
import { canonicalJson } from './canonical-json.ts';
import { ApiError } from './errors.ts';
import { sha256Hex } from './secrets.ts';

/** Same body, same hash: the canonical JSON of the body (key order at any depth does not matter). */
export function clientIdHash(input: object): string {
  return sha256Hex(canonicalJson(input));
}

/** The existing resource of a client_id repeat, or 409 when it was created from another body. */
export function sameClientIdBody<T extends { id: string; request_hash: string }>(existing: T, hash: string): T {
  if (existing.request_hash !== hash) {
    throw new ApiError(
      'client_id_conflict',
      `client_id was already used to create ${existing.id} with a different body.`,
    );
  }
  return existing;
}
