// The agent commands' view of the REST API: where the service is, the API key, and one call that
// turns every failure (no key, a bad base URL, nothing or not Cellgate answering, a problem+json)
// into one line that says what to do.
import { isHost } from '../lib/host.ts';
import { CliError } from './usage.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const REQUEST_TIMEOUT_MS = 30_000;

/** A CLI failure printed as one `cellgate:` line, exit code 1 (main.ts prints CliErrors so). */
export class AgentCliError extends CliError {}

/**
 * Where a service started in this environment listens: CELLGATE_BASE_URL, else
 * http://<CELLGATE_HOST>:<CELLGATE_PORT> with the service's defaults (127.0.0.1, 8080); a service
 * listening on every address (0.0.0.0, ::) is called on loopback. With the source, for messages.
 */
export function localBaseUrl(env: NodeJS.ProcessEnv = process.env): { url: string; source: string } {
  if (env.CELLGATE_BASE_URL) return { url: env.CELLGATE_BASE_URL, source: 'CELLGATE_BASE_URL' };
  if (!env.CELLGATE_HOST && !env.CELLGATE_PORT) return { url: DEFAULT_BASE_URL, source: 'the default' };
  if (env.CELLGATE_HOST && !isHost(env.CELLGATE_HOST))
    throw new AgentCliError(
      `CELLGATE_HOST ${JSON.stringify(env.CELLGATE_HOST)} is not an IP address or host name: set it to where the service listens (127.0.0.1), or set CELLGATE_BASE_URL or --base-url`,
    );
  if (env.CELLGATE_PORT && !(/^\d{1,5}$/.test(env.CELLGATE_PORT) && Number(env.CELLGATE_PORT) <= 65535))
    throw new AgentCliError(
      `CELLGATE_PORT ${JSON.stringify(env.CELLGATE_PORT)} is not a port (0-65535): set it to the service's port (8080), or set CELLGATE_BASE_URL or --base-url`,
    );
  const host =
    ({ '0.0.0.0': '127.0.0.1', '::': '::1' } as Record<string, string>)[env.CELLGATE_HOST ?? ''] ??
    (env.CELLGATE_HOST || '127.0.0.1');
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${env.CELLGATE_PORT || '8080'}`,
    source: 'CELLGATE_HOST and CELLGATE_PORT',
  };
}

export interface Target {
  baseUrl: string;
  key: string;
}

/** The service and key from the flags, else the environment; refuses a missing key or a non-URL. */
export function resolveTarget(flags: { baseUrl?: string; key?: string }, env: NodeJS.ProcessEnv = process.env): Target {
  const local = localBaseUrl(env);
  const [raw, source] = flags.baseUrl !== undefined ? [flags.baseUrl, '--base-url'] : [local.url, local.source];
  const baseUrl = parseBaseUrl(raw, source);
  const key = flags.key ?? env.CELLGATE_API_KEY ?? '';
  if (key.trim() === '')
    throw new AgentCliError(
      'no API key: set CELLGATE_API_KEY or --key (the cg_live_... key sign-up printed, or an access token)',
    );
  if (/\s/.test(key))
    throw new AgentCliError(
      `the API key from ${flags.key !== undefined ? '--key' : 'CELLGATE_API_KEY'} contains spaces; set CELLGATE_API_KEY or --key to the key alone (cg_live_...)`,
    );
  return { baseUrl, key };
}

function parseBaseUrl(raw: string, source: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new AgentCliError(
      `the base URL ${JSON.stringify(raw)} (${source}) is not an http:// or https:// URL: is the service running at ${DEFAULT_BASE_URL}? Set CELLGATE_BASE_URL or --base-url to where it runs`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

const causeCode = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer in ${REQUEST_TIMEOUT_MS / 1000} s`;
  return typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
};

/** "is the service running at …?" for a base URL that could not be reached or is not Cellgate. */
export function unreachable(baseUrl: string, why: string): AgentCliError {
  return new AgentCliError(
    `cannot reach Cellgate at ${baseUrl} (${why}): is the service running at ${baseUrl}? Start it (cellgate serve) or set CELLGATE_BASE_URL or --base-url`,
  );
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
}

export type Json = Record<string, unknown>;

/** One call of the API; the parsed JSON of a 2xx answer, else an AgentCliError that says what to do. */
export async function apiRequest(
  target: Target,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Json> {
  const url = new URL(`${target.baseUrl}${path}`);
  for (const [name, value] of Object.entries(options.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${target.key}`,
    ...options.headers,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (error) {
    throw unreachable(target.baseUrl, causeCode(error));
  }
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  let body: unknown = null;
  try {
    if (/json/.test(type)) body = JSON.parse(text);
  } catch {
    // not JSON after all: not the Cellgate API
  }
  const object = body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : null;
  if (response.ok && object) return object;
  if (!response.ok && object && typeof object.code === 'string') {
    const detail = typeof object.detail === 'string' ? object.detail : String(object.title ?? '');
    throw new AgentCliError(`${object.code} (HTTP ${response.status}): ${detail}`);
  }
  throw unreachable(
    target.baseUrl,
    `${method} ${path} answered HTTP ${response.status}${type ? ` ${type.split(';')[0]}` : ''}, not the Cellgate API`,
  );
}

/** The ws:// or wss:// URL of a path of the service. */
export function webSocketUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${path}`;
}
