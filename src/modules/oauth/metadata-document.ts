// Client ID Metadata Documents: a client identified by an https URL whose JSON describes it.
// The URL passes the same SSRF guard as webhook URLs (https, no private, loopback or link-local
// address), and the request connects to the address that was checked; redirects are not followed.
// A fetch is bounded in time and size (contract §8): a total deadline of 5 s, however slowly the
// bytes arrive, and at most 64 KB read (aborted past it).
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { http } from '../../lib/node-http.ts';
import { checkUrl, MAX_URL_LENGTH, type Lookup, type ResolvedAddress } from '../../lib/ssrf.ts';

/** The most a fetch reads; past it the connection is aborted. */
export const MAX_FETCH_BYTES = 64 * 1024;
/** The whole fetch, from connecting to the last byte. */
export const FETCH_DEADLINE_MS = 5_000;

export interface FetchedDocument {
  status: number;
  contentType: string;
  body: string;
}

/** GETs a metadata document from `url`, connecting to `target` (the address the guard checked). */
export type DocumentFetcher = (url: URL, target: ResolvedAddress | null) => Promise<FetchedDocument>;

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/**
 * The fetcher: one deadline over the whole exchange (an idle timeout alone lets a server that
 * drips a byte every few seconds hold the request for ever) and a byte cap. Only https URLs reach
 * it in the service (documentUrlProblem); http is for tests against a local server.
 */
export function documentFetcher(options: { deadlineMs?: number; maxBytes?: number } = {}): DocumentFetcher {
  const deadlineMs = options.deadlineMs ?? FETCH_DEADLINE_MS;
  const maxBytes = options.maxBytes ?? MAX_FETCH_BYTES;
  return (url, target) =>
    new Promise((resolve, reject) => {
      const get = url.protocol === 'http:' ? http.get : https.get;
      const request = get(url, {
        headers: { accept: 'application/json' },
        ...(target ? { lookup: pinnedLookup(target) } : {}),
      });
      const deadline = setTimeout(
        () => request.destroy(new Error(`no complete answer within ${deadlineMs} ms`)),
        deadlineMs,
      );
      const fail = (error: Error) => {
        clearTimeout(deadline);
        reject(error);
      };
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) request.destroy(new Error(`the document exceeds ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
    });
}

/** Whether a client_id is meant as a metadata document URL (then it must pass the checks below). */
export const isDocumentClientId = (clientId: string) => /^https?:\/\//i.test(clientId);

/** The shape rules of a Client ID Metadata Document URL; a reason, or null when it is acceptable. */
export function documentUrlProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `it is longer than ${MAX_URL_LENGTH} characters`;
  if (!URL.canParse(raw)) return 'it is not a URL';
  const url = new URL(raw);
  if (url.protocol !== 'https:') return 'it must be an https URL';
  if (url.username || url.password) return 'it must not carry credentials';
  if (raw.includes('#')) return 'it must not have a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'it must have a path';
  if (/\/\.{1,2}(\/|$)/.test(raw.slice(url.origin.length))) return 'it must not have dot segments';
  if (url.href !== raw) return 'it must be in normal form';
  return null;
}

/** Client metadata, registered or fetched, is at most this large (contract §8). */
export const MAX_DOCUMENT_BYTES = 16 * 1024;

export type DocumentResult = { ok: true; document: Record<string, unknown> } | { ok: false; reason: string };

/** Fetches and parses the document at `raw` through the SSRF guard. */
export async function fetchMetadataDocument(
  raw: string,
  deps: { lookup: Lookup; fetch: DocumentFetcher },
): Promise<DocumentResult> {
  const shape = documentUrlProblem(raw);
  if (shape) return { ok: false, reason: `The client_id URL is not acceptable: ${shape}.` };
  const check = await checkUrl(raw, { allowPrivate: false, lookup: deps.lookup });
  if (!check.ok) return { ok: false, reason: `The client_id URL is not acceptable: ${check.message}` };
  let fetched: FetchedDocument;
  try {
    fetched = await deps.fetch(check.url, check.target);
  } catch (error) {
    return { ok: false, reason: `The client metadata document could not be fetched (${(error as Error).message}).` };
  }
  if (fetched.status !== 200)
    return { ok: false, reason: `The client metadata document answered HTTP ${fetched.status}.` };
  if (Buffer.byteLength(fetched.body) > MAX_DOCUMENT_BYTES)
    return { ok: false, reason: `The client metadata document exceeds ${MAX_DOCUMENT_BYTES / 1024} KB.` };
  let document: unknown;
  try {
    document = JSON.parse(fetched.body);
  } catch {
    return { ok: false, reason: 'The client metadata document is not JSON.' };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return { ok: false, reason: 'The client metadata document is not a JSON object.' };
  return { ok: true, document: document as Record<string, unknown> };
}
