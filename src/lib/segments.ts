// SMS segment counting (contract §4). A body that fits the GSM 03.38 alphabet travels as GSM-7:
// 160 septets in one segment, 153 per part when concatenated (the UDH takes the rest); characters
// of the extension table cost two septets (escape + char) and never straddle two parts. Anything
// else travels as UCS-2: 70 UTF-16 code units in one segment, 67 per part, and a surrogate pair
// (an emoji, say) is never split across parts.

export type SmsEncoding = 'GSM-7' | 'UCS-2';

const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
    '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

const LIMITS = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
} as const;

export function encodingOf(body: string): SmsEncoding {
  for (const char of body) {
    if (!GSM7_BASIC.has(char) && !GSM7_EXTENSION.has(char)) return 'UCS-2';
  }
  return 'GSM-7';
}

/** Cost of one character in the encoding's units (septets or UTF-16 code units). */
function unitCost(char: string, encoding: SmsEncoding): number {
  // Iterating a string yields code points, so a surrogate pair is one character of cost 2.
  return encoding === 'GSM-7' ? (GSM7_EXTENSION.has(char) ? 2 : 1) : char.length;
}

/** Encoding and number of SMS segments `body` needs (0 for an empty body). */
export function countSegments(body: string): { encoding: SmsEncoding; segments: number } {
  const encoding = encodingOf(body);
  const { single, part } = LIMITS[encoding];
  let total = 0;
  for (const char of body) total += unitCost(char, encoding);
  if (total === 0) return { encoding, segments: 0 };
  if (total <= single) return { encoding, segments: 1 };
  // Greedy packing: a character that does not fit whole in the current part opens the next one.
  let segments = 1;
  let used = 0;
  for (const char of body) {
    const cost = unitCost(char, encoding);
    if (used + cost > part) {
      segments += 1;
      used = 0;
    }
    used += cost;
  }
  return { encoding, segments };
}
