// Verification codes (contract §12): finds the one-time code of an inbound text, and the service
// that sent it when the text names it. Pure: no I/O, no clock. A code is 4-8 digits (also "123
// 456" and "123-456", and Google's "G-123456") near a code word in one of the common languages
// ("code", "OTP", "password", "log in" ...), or 4-8 letters and digits right after such a word
// ("Your code is AB12CD"). Amounts, dates, times, phone, card and order numbers are never codes,
// and a text without a code word has none.

export interface DetectedCode {
  code: string;
  service: string | null;
}

/** Words that say "this text carries a one-time code", in the languages of the big senders. */
const KEYWORD = new RegExp(
  [
    String.raw`pass-?codes?`,
    String.raw`\bcodes?\b`,
    String.raw`codes?(?=[\s:：.,!-]|$)`, // the end of Bestätigungscode, Sicherheitscode, verificatiecode
    String.raw`\bOTPs?\b`,
    String.raw`\bPINs?\b`,
    String.raw`\bm?TANs?\b`,
    String.raw`\b2FA\b`,
    String.raw`\b(?:log|sign)[- ]?in\b`, // "Use 7731 to log in to Uber"
    String.raw`\bpasswords?\b`, // "Your one-time password is AB12CD"
    String.raw`\bone[- ]time\b`,
    String.raw`\bverif(?:y|ication|ier|ieer|icaci[oó]n|ica[cç][aã]o|ikasi|izierung|isering)\w*`,
    String.raw`\bauthenticat\w*`,
    String.raw`\bc[oó]digos?\b`,
    String.raw`\bcodice\b`,
    String.raw`\bclave\b`,
    String.raw`\bsenha\b`,
    String.raw`\bkod[a-z]*`,
    String.raw`\bkoodi\b`,
    String.raw`\bkód\b`,
    String.raw`\bEinmal\w*`,
    'код\\S*',
    'пароль',
    '验证码',
    '驗證碼',
    '校验码',
    '动态码',
    '認証コード',
    '確認コード',
    '인증번호',
    '인증 번호',
    'รหัส',
    'mã xác (?:nhận|thực)',
    'رمز',
    'קוד',
    'ओटीपी',
  ].join('|'),
  'giu',
);

/** A code word that is not about a one-time code: promo codes, post codes, QR codes. */
const NOT_A_CODE_WORD =
  /(?:promo|promotional|discount|coupon|voucher|referral|gift|zip|post|postal|area|country|dress|bar|qr|source|tracking|invite|invitation|booking|reservation|error|status|fehler|rabatt|gutschein|postleit|descuento|promocional|cupom|cupón|réduction|promotionnel)[- ]?$|(?:de|en|uni|QR)$/i;

/** What makes a number an amount, a time, a date, a phone number or a count rather than a code. */
const BEFORE_NOT_CODE =
  /(?:[$€£¥₹₩₽#*•x×]|R\$|US\$|\b(?:USD|EUR|GBP|INR|Rs\.?|MXN|BRL|CAD|AUD)|\b(?:ending(?: in)?|ends? in|ending with|last 4(?: digits)?|order|order no\.?|pedido|commande|bestellung|tracking|invoice|ref(?:erence)?(?: no\.?)?|ticket|case|flight|room|gate|seat|apt|suite|unit|box|ext\.?|tel\.?|phone|call|text|sms|call us at|dial|reply|pts|points of)\s*[:#]?\s*|\d[.,:/-]|\+\s*|\()$/i;
const AFTER_NOT_CODE =
  /^(?:[.,:/-]\d|\s*(?:%|USD|EUR|GBP|INR|dollars?|euros?|pounds?|pesos?|reais|rupees?|points?|pts|miles?|km|kg|lbs?|GB|MB|am|pm|a\.m\.|p\.m\.|h\b|hrs?|hours?|min(?:ute)?s?|sec(?:ond)?s?|days?|steps?|calories|kcal|followers?|likes?|views?)\b|\s*[)]|\s*[-–]\s*\d)/i;
const MONTH =
  /(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|januar|februar|märz|juni|juli|oktober|dezember)\.?/i;
const YEAR_AFTER_MONTH = new RegExp(
  String.raw`(?:${MONTH.source}\s+\d{1,2}(?:st|nd|rd|th)?,?|\d{1,2}\.?\s+${MONTH.source},?|${MONTH.source})\s*$`,
  'i',
);

/** Prefixes of the "G-123456" kind and the services they stand for. */
const PREFIXED: Record<string, string> = { G: 'Google', FB: 'Facebook' };

/** Words that look like a service name (capitalised) but are not one. */
const NOT_A_SERVICE = new Set(
  [
    'your',
    'the',
    'a',
    'an',
    'this',
    'our',
    'my',
    'code',
    'codes',
    'verification',
    'security',
    'login',
    'log-in',
    'sign-in',
    'signin',
    'one-time',
    'otp',
    'pin',
    'passcode',
    'confirmation',
    'authentication',
    'access',
    'account',
    'temporary',
    'new',
    'use',
    'enter',
    'do',
    'dont',
    "don't",
    'never',
    'please',
    'hi',
    'hello',
    'dear',
    'welcome',
    'thanks',
    'thank',
    'alert',
    'important',
    'notice',
    'info',
    'reminder',
    'tu',
    'su',
    'votre',
    'ton',
    'dein',
    'ihr',
    'il',
    'seu',
    'sua',
    'uw',
    'je',
    'ваш',
    'código',
    'codigo',
    'codice',
    'mfa',
    '2fa',
    'sms',
    'it',
    'is',
    'to',
    'for',
    'and',
    'or',
    'you',
    'we',
    'valid',
    'expires',
    'here',
    'from',
    'with',
    'via',
  ].map((word) => word.toLowerCase()),
);

const NAME = String.raw`(?:[a-z](?=[A-Z]))?[A-Z0-9][\p{L}\p{N}&.'+-]*(?:[ ](?:[A-Z0-9][\p{L}\p{N}&.'+-]*|of|de|&)){0,2}`;
const CODE_KIND = String.raw`(?i:(?:account\s+|app\s+)?(?:verification|security|login|log-in|sign-in|sign in|confirmation|one-time|authentication|authorization|access|activation|2FA|registration|password|temporary|OTP|PIN|passcode|code))`;

const SERVICE_PATTERNS: RegExp[] = [
  // <#> [Uber] ..., 【Taobao】..., (Venmo) ...
  /^\s*(?:<#>\s*)?[[【(]\s*([^\]】)\n]{2,30}?)\s*[\]】)]/u,
  // "Your Google verification code", "is your Instagram code", "as your Facebook login code"
  new RegExp(String.raw`\b(?:[Yy]our|[Tt]he)\s+(${NAME})(?:'s)?\s+${CODE_KIND}`, 'u'),
  // "Telegram code: 12345", "PayPal: Your security code ...", "Amazon: 123456 is ..."
  new RegExp(String.raw`^\s*(?:<#>\s*)?(${NAME})(?:\s+account)?(?:\s+${CODE_KIND}\b|\s*[:：])`, 'u'),
  // "TikTok 302918 is your verification code"
  new RegExp(String.raw`^\s*(${NAME})\s+\d{4,8}\s+is\s+your\b`, 'u'),
  // "... code for Netflix", "código de WhatsApp", "Bestätigungscode für Google", "from PayPal"
  new RegExp(
    String.raw`(?:code|c[oó]digo|codice|OTP|PIN|passcode|verification|vérification|verificación|ificación)\s+(?:\S+\s+)?(?:for|from|to|de|für|pour|per|para|di|voor|для)\s+(?:your\s+)?(${NAME})`,
    'u',
  ),
  // "Votre code Google", "Dein Google-Code"
  new RegExp(
    String.raw`\b(?:Votre|votre|Dein|dein|Ihr|ihr)\s+(${NAME})[- ](?:Code|code|Bestätigungscode|Sicherheitscode)`,
    'u',
  ),
  // "Votre code Google", "Votre code de confirmation Leboncoin"
  new RegExp(String.raw`\b[Vv]otre\s+code\s+(?:de\s+\S+\s+)?(${NAME})`, 'u'),
  // "Use 7731 to log in to Uber", "to sign in at Acme"
  new RegExp(String.raw`\b(?:[Ll]og|[Ss]ign)[- ]?in\s+(?:to|at|on)\s+(?:your\s+)?(${NAME})`, 'u'),
  // "... - Telegram", "— Instagram" at the end
  new RegExp(String.raw`\s[-–—]\s*(${NAME})\s*\.?\s*$`, 'u'),
];

interface Candidate extends Span {
  code: string;
  /** Right after a code word ("code is 1234", "code: 1234"): wins over distance. */
  announced: boolean;
  service?: string;
}

const DIGITS = /(?<![\p{L}\p{N}_])(\d{3}[ -]\d{3}|\d{4,8})(?![\p{L}\p{N}_])/gu;
const PREFIXED_DIGITS = /(?<![\p{L}\p{N}_-])([A-Z]{1,2})-(\d{4,8})(?![\p{L}\p{N}_])/gu;
const ALPHANUMERIC = /(?<![\p{L}\p{N}_-])([A-Za-z0-9]{4,8})(?![\p{L}\p{N}_-])/gu;
/** "code is", "code:", "código es", "code est", "Code lautet", "код:" ... then the code. */
const ANNOUNCER = /^\s*(?:(?:is|es|est|ist|lautet|è|é|is:|:|：|-|=|—)\s*)?(?:[:：]\s*)?$/iu;
const MAX_DISTANCE = 80;

/** The one-time code of a text, and its service when the text names one; null when there is none. */
export function detectCode(text: string): DetectedCode | null {
  const body = text.normalize('NFC');
  const keywords = codeWords(body);
  if (keywords.length === 0) return null;
  const candidates = [...digitCandidates(body, keywords), ...alphanumericCandidates(body, keywords)];
  let best: { candidate: Candidate; score: number } | undefined;
  for (const candidate of candidates) {
    const distance = Math.min(...keywords.map((k) => gap(k, candidate)));
    if (distance > MAX_DISTANCE && !candidate.announced) continue;
    const score = (candidate.announced ? 0 : 1000) + distance;
    if (!best || score < best.score) best = { candidate, score };
  }
  if (!best) return null;
  return { code: best.candidate.code, service: best.candidate.service ?? serviceOf(body) };
}

interface Span {
  start: number;
  end: number;
}

function codeWords(body: string): Span[] {
  const spans: Span[] = [];
  for (const match of body.matchAll(KEYWORD)) {
    const before = body.slice(Math.max(0, match.index - 24), match.index);
    if (NOT_A_CODE_WORD.test(before)) continue;
    spans.push({ start: match.index, end: match.index + match[0].length });
  }
  return spans;
}

const gap = (a: Span, b: Span) => (b.start >= a.end ? b.start - a.end : a.start >= b.end ? a.start - b.end : 0);

function announced(body: string, keywords: Span[], start: number): boolean {
  return keywords.some((k) => k.end <= start && start - k.end <= 12 && ANNOUNCER.test(body.slice(k.end, start)));
}

function digitCandidates(body: string, keywords: Span[]): Candidate[] {
  const found: Candidate[] = [];
  for (const match of body.matchAll(PREFIXED_DIGITS)) {
    const service = PREFIXED[match[1]!];
    if (!service) continue;
    found.push({
      code: match[2]!,
      start: match.index,
      end: match.index + match[0].length,
      announced: true,
      service,
    });
  }
  for (const match of body.matchAll(DIGITS)) {
    const start = match.index;
    const end = start + match[0].length;
    if (found.some((c) => c.start <= start && end <= c.end)) continue;
    const before = body.slice(Math.max(0, start - 24), start);
    const after = body.slice(end, end + 16);
    if (BEFORE_NOT_CODE.test(before) || AFTER_NOT_CODE.test(after)) continue;
    if (/^(?:19|20)\d\d$/.test(match[0]) && YEAR_AFTER_MONTH.test(before)) continue;
    // One group of a longer number written in groups: a phone number or a meeting id.
    if (/\d[ ]$/.test(before) || /^[ ]\d/.test(after)) continue;
    found.push({
      code: match[0].replace(/[ -]/g, ''),
      start,
      end,
      announced: announced(body, keywords, start),
    });
  }
  return found;
}

/** Codes of letters and digits count only where the text announces them ("code is AB12CD"). */
function alphanumericCandidates(body: string, keywords: Span[]): Candidate[] {
  const found: Candidate[] = [];
  for (const match of body.matchAll(ALPHANUMERIC)) {
    const code = match[1]!;
    if (/^\d+$/.test(code) || !/\d/.test(code) || !/[A-Za-z]/.test(code)) continue;
    if (!announced(body, keywords, match.index)) continue;
    found.push({ code, start: match.index, end: match.index + code.length, announced: true });
  }
  return found;
}

function serviceOf(body: string): string | null {
  for (const pattern of SERVICE_PATTERNS) {
    const name = cleanService(pattern.exec(body)?.[1]);
    if (name) return name;
  }
  return null;
}

function cleanService(raw: string | undefined): string | null {
  if (!raw) return null;
  const words = raw
    .trim()
    .replace(/[.'’]s$/u, '')
    .replace(/[.:,]+$/u, '')
    .split(/\s+/)
    .filter((word) => word.length > 0);
  while (words.length > 0 && NOT_A_SERVICE.has(words[words.length - 1]!.toLowerCase())) words.pop();
  if (words.length === 0 || NOT_A_SERVICE.has(words[0]!.toLowerCase())) return null;
  const name = words.join(' ');
  if (/^\d+$/.test(name) || (MONTH.test(name) && name.length <= 9)) return null;
  return name.length > 40 ? null : name;
}
