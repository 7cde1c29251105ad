// Server-side request forgery guard for URLs the service calls on a customer's behalf (webhooks).
// A URL is checked when it is saved and again before every request, because DNS can change; the
// request then connects to the address that was checked (see `pinned`), never to a fresh lookup.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { dottedIpv4, ipv6Groups } from './ip.ts';
import { LruMap } from './lru.ts';

export const MAX_URL_LENGTH = 2048;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable so tests can make a name "resolve" anywhere). */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: Lookup = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Remembers answers for `ttlMs` (clock time), so a busy endpoint is not resolved for every
 * request. Safe for the guard: every answer is checked before it is used and then pinned. Keeps at
 * most `maxEntries` names, dropping the least recently used (busy endpoints stay cached).
 */
export function cachedLookup(lookup: Lookup, ttlMs: number, now: () => number, maxEntries = 10_000): Lookup {
  const answers = new LruMap<string, { addresses: ResolvedAddress[]; until: number }>(maxEntries);
  return async (hostname) => {
    const cached = answers.get(hostname);
    if (cached && cached.until > now()) return cached.addresses;
    const addresses = await lookup(hostname);
    answers.set(hostname, { addresses, until: now() + ttlMs });
    return addresses;
  };
}

export type UrlProblem = { code: 'invalid_url' | 'forbidden_address'; message: string };

export type UrlCheck = { ok: true; url: URL; target: ResolvedAddress | null } | ({ ok: false } & UrlProblem);

const blocked = new BlockList();
// IPv4: "this" network, private, CGNAT, loopback, link-local, IETF protocol assignments,
// documentation and benchmarking ranges, multicast, reserved and broadcast.
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
// IPv6: unspecified and loopback (and the deprecated IPv4-compatible range around them),
// discard, local-use NAT64 (RFC 8215: where its IPv4 sits depends on the prefix each network
// picks, so none can be read out), documentation, unique-local, site-local, link-local, multicast.
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fec0::', 10],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/**
 * IPv6 ranges that carry an IPv4 address, and where it sits in the eight 16-bit groups: such an
 * address reaches (or is translated to) the IPv4 one, so that one is checked too.
 */
const EMBEDDING: { network: string; prefix: number; ipv4: (g: number[]) => string[] }[] = [
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d (RFC 2765), NAT64 64:ff9b::a.b.c.d.
  { network: '::ffff:0:0', prefix: 96, ipv4: (g) => [dottedIpv4(g[6], g[7])] },
  { network: '::ffff:0:0:0', prefix: 96, ipv4: (g) => [dottedIpv4(g[6], g[7])] },
  { network: '64:ff9b::', prefix: 96, ipv4: (g) => [dottedIpv4(g[6], g[7])] },
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056).
  { network: '2002::', prefix: 16, ipv4: (g) => [dottedIpv4(g[1], g[2])] },
  // Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380): the server, and the client with its bits inverted.
  { network: '2001::', prefix: 32, ipv4: (g) => [dottedIpv4(g[2], g[3]), dottedIpv4(g[6] ^ 0xffff, g[7] ^ 0xffff)] },
];
const embeddings = EMBEDDING.map((range) => {
  const list = new BlockList();
  list.addSubnet(range.network, range.prefix, 'ipv6');
  return { list, ipv4: range.ipv4 };
});

/** The IPv4 addresses an IPv6 address carries (see EMBEDDING), else none. */
function embeddedIpv4(address: string): string[] {
  const range = embeddings.find((e) => e.list.check(address, 'ipv6'));
  if (!range) return [];
  const groups = ipv6Groups(address);
  return groups ? range.ipv4(groups) : [];
}

/** True for any address a webhook must not reach: private, loopback, link-local, unique-local, CGNAT, multicast, unspecified. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  if (blocked.check(address, 'ipv6')) return true;
  return embeddedIpv4(address).some((inner) => blocked.check(inner, 'ipv4'));
}

function problem(code: UrlProblem['code'], message: string): UrlCheck {
  return { ok: false, code, message };
}

/**
 * Checks a webhook URL: it parses, is https (http too when private targets are allowed), carries
 * no credentials, is at most 2048 characters, and its host neither is nor resolves to a forbidden
 * address. Returns the address to connect to (null when any address is acceptable, or when the
 * name does not resolve and `allowUnresolved` is set).
 */
export async function checkUrl(
  raw: string,
  options: { allowPrivate: boolean; lookup: Lookup; allowUnresolved?: boolean },
): Promise<UrlCheck> {
  if (raw.length > MAX_URL_LENGTH) return problem('invalid_url', `url must be at most ${MAX_URL_LENGTH} characters.`);
  const url = URL.parse(raw);
  if (!url) return problem('invalid_url', 'url is not an absolute URL.');
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    return problem(
      'invalid_url',
      options.allowPrivate ? 'url must be an http or https URL.' : 'url must be an https URL.',
    );
  if (url.username || url.password) return problem('invalid_url', 'url must not carry credentials.');
  if (!url.hostname) return problem('invalid_url', 'url has no host.');
  if (options.allowPrivate) return { ok: true, url, target: null };

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    addresses = await options.lookup(host).catch((): ResolvedAddress[] => []);
    if (addresses.length === 0) {
      // At registration a name that does not resolve yet (new DNS, a resolver hiccup) is
      // accepted: every delivery checks again, and nothing is sent to an unchecked address.
      if (options.allowUnresolved) return { ok: true, url, target: null };
      return problem('invalid_url', `The host ${host} does not resolve.`);
    }
  }
  // Every address must be public: a name answering with one private address is a rebinding attempt.
  const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
  if (forbidden)
    return problem(
      'forbidden_address',
      `url must not point to a private, loopback or link-local address (${host} is ${forbidden.address}).`,
    );
  return { ok: true, url, target: addresses[0] };
}
