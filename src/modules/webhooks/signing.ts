// Standard Webhooks signing: `whsec_` + base64 key; the signature is
// v1,base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")).
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

// Importing a key costs more than the HMAC of a small body; endpoints sign many deliveries.
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 10_000) keys.clear();
    key = createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'));
    keys.set(secret, key);
  }
  return key;
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = keyOf(secret);
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of one delivery attempt; during a rotation both secrets sign (space-separated). */
export function deliveryHeaders(secrets: string[], id: string, timestampSeconds: number, body: string) {
  return {
    'content-type': 'application/json',
    'user-agent': 'Cellgate-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' '),
  };
}
