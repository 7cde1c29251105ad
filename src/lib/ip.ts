// Reading IP addresses: IPv6 through the WHATWG URL parser (any notation in, one compressed hex
// form out), so no hand-written grammar decides what an address is.
import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = host.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16));
}

/** Four bytes held in two 16-bit groups, as a dotted IPv4 address. */
export const dottedIpv4 = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * Who a client address stands for when it is counted (per-address rate limits): an IPv4 address
 * itself, an IPv4-mapped IPv6 address as its IPv4, any other IPv6 address as its /64, the
 * smallest network a subscriber is given, so one host cannot take a new budget per address.
 */
export function clientNetwork(address: string): string {
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return dottedIpv4(groups[6], groups[7]);
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
