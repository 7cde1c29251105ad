// The outgoing HTTP request of a delivery attempt. Injectable (tests, benchmarks); the default
// connects to the address the SSRF guard checked instead of resolving the host again, keeps
// connections alive per endpoint, and gives up after the timeout.
import { http } from '../../lib/node-http.ts';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../../lib/ssrf.ts';

export interface EgressRequest {
  url: URL;
  /** Connect here (the checked address), or resolve normally when null (private targets allowed). */
  target: ResolvedAddress | null;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface EgressResponse {
  status: number;
  retryAfter: string | undefined;
  /** The first KEPT_RESPONSE_BYTES of the body (shown on the console's delivery page). */
  body?: string;
}

/** Sends one request; rejects on connection errors and timeouts (EgressTimeout). */
export type Egress = (request: EgressRequest) => Promise<EgressResponse>;

export class EgressTimeout extends Error {}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  // net.connect asks for `all` addresses when it races IPv4 and IPv6 (autoSelectFamily).
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/** Drains at most this much of a response body. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Keeps this much of it. */
export const KEPT_RESPONSE_BYTES = 4 * 1024;

/** A keep-alive connection the receiver closed just as it was reused: safe to send again at once. */
class StaleConnection extends Error {}

function sendOnce(request: EgressRequest, timeoutMs: number, fresh: boolean): Promise<EgressResponse> {
  return new Promise((resolve, reject) => {
    const protocol = request.url.protocol === 'https:' ? https : http;
    const outgoing = protocol.request(request.url, {
      method: 'POST',
      agent: fresh ? false : agents[request.url.protocol as 'http:' | 'https:'],
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      ...(request.target ? { lookup: pinnedLookup(request.target) } : {}),
    });
    const timer = setTimeout(
      () => outgoing.destroy(new EgressTimeout(`no response within ${request.timeoutMs} ms`)),
      timeoutMs,
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const stale = outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleConnection(error.message, { cause: error }) : error);
    });
    outgoing.on('response', (response) => {
      let received = 0;
      const kept: Buffer[] = [];
      const retryAfter = response.headers['retry-after'];
      response.on('data', (chunk: Buffer) => {
        if (received < KEPT_RESPONSE_BYTES) kept.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - received));
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) response.destroy();
      });
      const done = () => {
        clearTimeout(timer);
        // A character cut at the 4 KiB edge decodes as U+FFFD.
        resolve({ status: response.statusCode ?? 0, retryAfter, body: Buffer.concat(kept).toString('utf8') });
      };
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    outgoing.end(request.body);
  });
}

export const httpEgress: Egress = async (request) => {
  const started = performance.now();
  try {
    return await sendOnce(request, request.timeoutMs, false);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    // Node's agent does not retry this itself. The second try gets a connection of its own: the
    // pool may hold more connections the receiver has closed (it restarted, say).
    return sendOnce(request, Math.max(1, request.timeoutMs - (performance.now() - started)), true);
  }
};
