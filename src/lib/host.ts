// What CELLGATE_HOST may be: an IP address, or a host name whose last label is not all digits
// (so 999.1.1.1, a mistyped address, is neither).
import { isIP } from 'node:net';

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isHost(raw: string): boolean {
  if (isIP(raw) !== 0) return true;
  const labels = raw.split('.');
  return raw.length <= 253 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) as string);
}
