// The SMSGate app signs each webhook (webhooks/plugins/PayloadSingingPlugin.kt): X-Timestamp is
// Unix seconds, X-Signature the lowercase hex HMAC-SHA256 of the body text followed by that
// timestamp, under the signing key Cellgate gave the phone in its settings.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Timestamps older (or further ahead) than this are refused: a captured webhook cannot be replayed later. */
export const SIGNATURE_TOLERANCE_S = 300;

export function signPayload(key: string, body: string, timestamp: string): string {
  return createHmac('sha256', key)
    .update(body + timestamp)
    .digest('hex');
}

/**
 * Why a webhook's signature headers are refused before its body is read (missing, malformed, or a
 * timestamp out of tolerance), or null when they may be checked against the body.
 */
export function headerProblem(headers: { signature: unknown; timestamp: unknown }, nowMs: number): string | null {
  const { signature, timestamp } = headers;
  if (typeof signature !== 'string' || typeof timestamp !== 'string')
    return 'A webhook needs its X-Signature and X-Timestamp headers.';
  if (!/^[0-9]{1,12}$/.test(timestamp)) return 'X-Timestamp must be Unix seconds.';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_S)
    return `X-Timestamp is more than ${SIGNATURE_TOLERANCE_S} seconds away from the server's time.`;
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return 'X-Signature must be a hex HMAC-SHA256.';
  return null;
}

/** Why a webhook's signature is refused, or null when it is valid. */
export function signatureProblem(
  key: string,
  body: string,
  headers: { signature: unknown; timestamp: unknown },
  nowMs: number,
): string | null {
  const problem = headerProblem(headers, nowMs);
  if (problem) return problem;
  const expected = Buffer.from(signPayload(key, body, String(headers.timestamp)), 'hex');
  return timingSafeEqual(expected, Buffer.from(String(headers.signature), 'hex'))
    ? null
    : 'X-Signature does not match the body.';
}
