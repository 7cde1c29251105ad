// The SMSGate app's wire habits (v1.68.0), written from its source for the app's test double
// (test/support/smsgate-app.ts): how its Gson writes JSON and dates, how it signs a webhook, how
// it makes ids and redacts SIM fields. Each function names the source file it follows; paths are
// under app/src/main/java/me/capcom/smsgateway/ at tag v1.68.0 of capcom6/android-sms-gateway.
import { createHmac, randomBytes } from 'node:crypto';

/**
 * JSON as the app's Gson writes it (extensions/GsonBuilder.kt configures a plain GsonBuilder):
 * null fields left out (Gson's default, serializeNulls off), and Gson's default HTML-safe
 * escaping of `<`, `>`, `&`, `=`, `'` (and U+2028/U+2029) as \uXXXX. The escapes matter for
 * webhooks: the signature covers these bytes, so a server must verify the body as received.
 */
export function gsonJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (v === null ? undefined : v));
  return text.replace(/[<>&=']|\u2028|\u2029/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A date as the app's Gson writes it: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" in the phone's time zone
 * (extensions/GsonBuilder.kt, Android N and later): `+07:00`, or `Z` at UTC.
 */
export function gsonDate(date: Date, utcOffsetMinutes: number): string {
  const local = new Date(date.getTime() + utcOffsetMinutes * 60_000).toISOString().slice(0, 23);
  if (utcOffsetMinutes === 0) return `${local}Z`;
  const sign = utcOffsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(utcOffsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

// What Gson's date adapter reads back: its own pattern, then ISO 8601 (ISO8601Utils) as fallback.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?))?$/;

/** A date field of a server answer as the app's Gson reads it: null, or an ISO 8601 string. */
export function readGsonDate(value: unknown, field: string): Date | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !ISO_8601.test(value))
    throw new Error(`the app's Gson cannot read ${field}: ${JSON.stringify(value)}`);
  return new Date(value);
}

/**
 * X-Signature as modules/webhooks/plugins/PayloadSingingPlugin.kt computes it: HMAC-SHA256 under
 * the signing key's UTF-8 bytes, of the request body's text followed by the X-Timestamp string
 * (Unix seconds), as lowercase hex.
 */
export function webhookSignature(signingKey: string, body: string, timestamp: string): string {
  return createHmac('sha256', Buffer.from(signingKey, 'utf8'))
    .update(body + timestamp, 'utf8')
    .digest('hex');
}

const NANOID_ALPHABET = '_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * jnanoid's NanoIdUtils.randomNanoId(): 21 characters of `_-0-9a-zA-Z` (the webhook event's `id`
 * in modules/webhooks/WebHooksService.kt); WebhooksSettings.kt makes an 8-character one as the
 * signing key when the server sent none.
 */
export function nanoId(size = 21): string {
  return [...randomBytes(size)].map((byte) => NANOID_ALPHABET[byte & 63]).join('');
}

/** java.lang.String.hashCode(): s[0]*31^(n-1) + ... over UTF-16 code units, in 32 bits. */
function javaStringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The `messageId` of an `sms:received` payload (modules/receiver/ReceiverService.kt):
 * `InboxMessage.Text.hashCode().toUInt().toString(16)`, the hash over the sender's address, the
 * date (java.util.Date.hashCode), the subscription id and the text (modules/receiver/data/InboxMessage.kt).
 */
export function inboxMessageId(address: string, date: Date, subscriptionId: number | null, text: string): string {
  const time = BigInt(date.getTime());
  const dateHash = Number(BigInt.asIntN(32, time)) ^ Number(BigInt.asIntN(32, time >> 32n)); // (int) ht ^ (int) (ht >> 32)
  let hash = javaStringHash(address);
  hash = (Math.imul(hash, 31) + dateHash) | 0;
  hash = (Math.imul(hash, 31) + (subscriptionId ?? 0)) | 0;
  hash = (Math.imul(hash, 31) + javaStringHash(text)) | 0;
  return (hash >>> 0).toString(16);
}

/**
 * GatewayService.kt's `String?.redact()`, applied to each SIM card's phoneNumber, carrierName and
 * iccid before register and patch: all but the last 4 characters become `*`; 4 or fewer, `****`.
 * The server never learns a SIM's number from registration.
 */
export function redact(value: string | null): string | null {
  if (value === null) return null;
  if (value.length > 4) return '*'.repeat(value.length - 4) + value.slice(-4);
  return '****';
}
