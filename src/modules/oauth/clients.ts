// OAuth clients: RFC 7591 dynamic registration, Client ID Metadata Documents (fetched, checked
// and cached), redirect URI rules (RFC 8252 for loopback) and client authentication at the token,
// introspection and revocation endpoints (client_secret_basic, client_secret_post, none).
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { constantTimeEqualHex, newSecret, sha256Hex } from '../../lib/secrets.ts';
import type { Lookup } from '../../lib/ssrf.ts';
import { invalidClient, OAuthError } from './errors.ts';
import {
  fetchMetadataDocument,
  isDocumentClientId,
  MAX_DOCUMENT_BYTES,
  type DocumentFetcher,
} from './metadata-document.ts';
import type { OAuthRepository } from './repository.ts';
import type { ClientAuthMethod, OAuthClientsTable } from './tables.ts';

export const CLIENT_SECRET_PREFIX = 'cg_cs_';
export const AUTH_METHODS: ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none'];
export const GRANT_TYPES = ['authorization_code', 'refresh_token'];
/** A fetched metadata document is trusted this long before it is fetched again. */
export const DOCUMENT_CACHE_MS = 60 * 60 * 1000;
/** A failed fetch is answered from memory this long, so a bad URL cannot make us fetch it in a loop. */
export const DOCUMENT_FAILURE_CACHE_MS = 60 * 1000;
const MAX_CACHED_FAILURES = 1000;
/** Metadata document fetches at once in this process; more fail fast (temporarily_unavailable). */
export const MAX_CONCURRENT_FETCHES = 16;
/** Registration bodies and metadata documents alike. */
export const MAX_METADATA_BYTES = MAX_DOCUMENT_BYTES;
const MAX_REDIRECT_URIS = 20;
/** Parameters of the authorization response: a redirect URI may not carry them itself. */
const RESPONSE_PARAMETERS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'];

export type Client = ReturnType<typeof clientOf>;

const clientOf = (row: OAuthClientsTable) => ({
  id: row.id,
  kind: row.kind,
  authMethod: row.token_endpoint_auth_method,
  secretHash: row.secret_hash,
  name: row.client_name,
  uri: row.client_uri,
  redirectUris: JSON.parse(row.redirect_uris) as string[],
  grantTypes: JSON.parse(row.grant_types) as string[],
  // Scopes the client may ask for; null: any API scope.
  scopes: row.scope ? row.scope.split(' ') : null,
});

// http://127.0.0.1, http://[::1] and http://localhost, with or without a port.
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?(?=[/?]|$)/i;

/** Why a redirect URI cannot be registered, or null. https, or http on a loopback host. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2048) return 'must be a URI of 1-2048 characters';
  if (!URL.canParse(raw)) return 'must be an absolute URI';
  const url = new URL(raw);
  if (raw.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (/[\s<>"\\^`{|}]/.test(raw)) return 'must not contain spaces or unsafe characters';
  if (RESPONSE_PARAMETERS.some((name) => url.searchParams.has(name)))
    return `must not carry the parameters ${RESPONSE_PARAMETERS.join(', ')}`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.test(raw)) return null;
  return 'must use https (http only for a loopback host: 127.0.0.1, [::1] or localhost)';
}

/**
 * Exact string match, except that a loopback redirect URI may use any port (RFC 8252 §7.3):
 * the rest of the URI, host included, must still be identical.
 */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = LOOPBACK.exec(registered);
  const b = LOOPBACK.exec(presented);
  if (!a || !b) return false;
  return (
    a[1].toLowerCase() === b[1].toLowerCase() &&
    registered.slice(a[0].length) === presented.slice(b[0].length) &&
    redirectUriProblem(presented) === null
  );
}

type Metadata = Pick<Client, 'authMethod' | 'name' | 'uri' | 'redirectUris' | 'grantTypes' | 'scopes'>;

const metadataError = (message: string) => new OAuthError('invalid_client_metadata', message);

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw metadataError(`${field} must be an array of strings.`);
  return value as string[];
}

/** Validates client metadata (a registration body, or a metadata document). */
export function parseMetadata(
  input: Record<string, unknown>,
  options: { allScopes: string[]; document: boolean },
): Metadata {
  if (input.redirect_uris === undefined) throw new OAuthError('invalid_redirect_uri', 'redirect_uris is required.');
  if (
    !Array.isArray(input.redirect_uris) ||
    input.redirect_uris.length === 0 ||
    input.redirect_uris.length > MAX_REDIRECT_URIS
  ) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris must be an array of 1-${MAX_REDIRECT_URIS} URIs.`);
  }
  for (const uri of input.redirect_uris as unknown[]) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthError('invalid_redirect_uri', `The redirect URI ${JSON.stringify(uri).slice(0, 200)} ${problem}.`);
  }
  const redirectUris = [...new Set(input.redirect_uris as string[])];

  const method = input.token_endpoint_auth_method ?? (options.document ? 'none' : 'client_secret_basic');
  if (options.document && method !== 'none')
    throw metadataError('A client metadata document must use token_endpoint_auth_method "none".');
  if (!AUTH_METHODS.includes(method as ClientAuthMethod))
    throw metadataError(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`);
  if (options.document && (input.client_secret !== undefined || input.client_secret_expires_at !== undefined)) {
    throw metadataError('A client metadata document must not contain a client secret.');
  }

  const grantTypes =
    input.grant_types === undefined
      ? ['authorization_code']
      : [...new Set(stringList(input.grant_types, 'grant_types'))];
  const unsupported = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (unsupported)
    throw metadataError(`The grant type ${unsupported} is not supported; use authorization_code and refresh_token.`);
  if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types must include authorization_code.');
  if (input.response_types !== undefined) {
    const responseTypes = stringList(input.response_types, 'response_types');
    if (responseTypes.some((t) => t !== 'code')) throw metadataError('response_types may only contain "code".');
  }

  let name: string | null = null;
  if (input.client_name !== undefined) {
    if (
      typeof input.client_name !== 'string' ||
      input.client_name.trim() === '' ||
      input.client_name.length > 100 ||
      /[\p{Cc}\p{Cf}]/u.test(input.client_name)
    ) {
      throw metadataError('client_name must be 1-100 printable characters.');
    }
    name = input.client_name.trim();
  }
  let uri: string | null = null;
  if (input.client_uri !== undefined) {
    if (
      typeof input.client_uri !== 'string' ||
      input.client_uri.length > 2048 ||
      !URL.canParse(input.client_uri) ||
      new URL(input.client_uri).protocol !== 'https:'
    ) {
      throw metadataError('client_uri must be an https URL.');
    }
    uri = input.client_uri;
  }
  let scopes: string[] | null = null;
  if (input.scope !== undefined) {
    if (typeof input.scope !== 'string') throw metadataError('scope must be a space-separated string.');
    scopes = [...new Set(input.scope.split(' ').filter(Boolean))];
    const unknown = scopes.find((s) => !options.allScopes.includes(s));
    if (unknown) throw metadataError(`The scope ${unknown} is not one of ${options.allScopes.join(' ')}.`);
    if (scopes.length === 0) scopes = null;
  }
  return { authMethod: method as ClientAuthMethod, name, uri, redirectUris, grantTypes, scopes };
}

function clientRow(
  id: string,
  kind: OAuthClientsTable['kind'],
  metadata: Metadata,
  secretHash: string | null,
  now: string,
  expiresAt: string | null,
): OAuthClientsTable {
  return {
    id,
    kind,
    secret_hash: secretHash,
    token_endpoint_auth_method: metadata.authMethod,
    client_name: metadata.name,
    client_uri: metadata.uri,
    redirect_uris: JSON.stringify(metadata.redirectUris),
    grant_types: JSON.stringify(metadata.grantTypes),
    scope: metadata.scopes?.join(' ') ?? null,
    created_at: now,
    updated_at: now,
    expires_at: expiresAt,
  };
}

/** Where the credentials of a client arrive at the token, introspection and revocation endpoints. */
export interface PresentedClient {
  authorization: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
}

function basicCredentials(header: string): { id: string; secret: string } {
  const encoded = /^Basic ([A-Za-z0-9+/=]{1,2048})$/i.exec(header)?.[1];
  const decoded = encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw invalidClient('The Authorization header must be "Basic base64(client_id:client_secret)".');
  try {
    // RFC 6749 §2.3.1: both are form-urlencoded before being joined.
    const form = (part: string) => decodeURIComponent(part.replaceAll('+', ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('The Basic credentials are not properly encoded.');
  }
}

/** Why a client_id names no usable client; `busy` when only the fetch limit stood in the way. */
export type Unresolved = { problem: string; busy?: true };

export class OAuthClients {
  private readonly deps: ConstructorParameters<typeof OAuthClients>[0];
  private readonly maxFetches: number;
  /** Document URLs whose last fetch failed: the reason, until when it is repeated without fetching. */
  private readonly failures = new Map<string, { problem: string; until: number }>();
  /** Fetches under way, by URL: a second authorization of the same client waits for the first. */
  private readonly inFlight = new Map<string, Promise<{ client: Client } | Unresolved>>();

  constructor(deps: {
    repo: OAuthRepository;
    clock: Clock;
    allScopes: string[];
    lookup: Lookup;
    fetch: DocumentFetcher;
    maxConcurrentFetches?: number;
  }) {
    this.deps = deps;
    this.maxFetches = deps.maxConcurrentFetches ?? MAX_CONCURRENT_FETCHES;
  }

  /** RFC 7591: registers a client; a confidential one gets its secret, shown once. */
  async register(body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw metadataError('The body must be a JSON object of client metadata.');
    const metadata = parseMetadata(body as Record<string, unknown>, {
      allScopes: this.deps.allScopes,
      document: false,
    });
    const now = this.deps.clock.now();
    const secret = metadata.authMethod === 'none' ? null : newSecret(CLIENT_SECRET_PREFIX);
    const row = clientRow(
      newId('ocl', this.deps.clock, now),
      'registered',
      metadata,
      secret ? sha256Hex(secret) : null,
      now.toISOString(),
      null,
    );
    await this.deps.repo.insertClient(row);
    return {
      client_id: row.id,
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      redirect_uris: metadata.redirectUris,
      token_endpoint_auth_method: metadata.authMethod,
      grant_types: metadata.grantTypes,
      response_types: ['code'],
      ...(metadata.name !== null ? { client_name: metadata.name } : {}),
      ...(metadata.uri !== null ? { client_uri: metadata.uri } : {}),
      ...(metadata.scopes !== null ? { scope: metadata.scopes.join(' ') } : {}),
    };
  }

  /**
   * The client behind a client_id: a registered client, or a Client ID Metadata Document (from
   * the cache while fresh, else fetched through the SSRF guard). `{problem}` says why not.
   */
  async resolve(clientId: string): Promise<{ client: Client } | Unresolved> {
    if (clientId.length > 2048) return { problem: 'The client_id is not a registered client.' };
    const row = await this.deps.repo.findClient(clientId);
    const now = this.deps.clock.now();
    if (row && (row.kind === 'registered' || (row.expires_at !== null && row.expires_at > now.toISOString())))
      return { client: clientOf(row) };
    if (!isDocumentClientId(clientId)) return { problem: 'The client_id is not a registered client.' };

    const failed = this.failures.get(clientId);
    if (failed && failed.until > now.getTime()) return { problem: failed.problem };
    const pending = this.inFlight.get(clientId);
    if (pending) return pending;
    if (this.inFlight.size >= this.maxFetches) {
      return {
        problem: 'Too many client metadata documents are being fetched at the moment; try again shortly.',
        busy: true,
      };
    }
    const fetching = this.fetchDocumentClient(clientId).finally(() => this.inFlight.delete(clientId));
    this.inFlight.set(clientId, fetching);
    return fetching;
  }

  private async fetchDocumentClient(clientId: string): Promise<{ client: Client } | Unresolved> {
    const outcome = await this.fetchAndParse(clientId);
    const now = this.deps.clock.now();
    if ('problem' in outcome) {
      // Bounded: a flood of distinct bad URLs only empties the cache early.
      if (this.failures.size >= MAX_CACHED_FAILURES) this.failures.clear();
      this.failures.set(clientId, { problem: outcome.problem, until: now.getTime() + DOCUMENT_FAILURE_CACHE_MS });
      return outcome;
    }
    this.failures.delete(clientId);
    const document = clientRow(
      clientId,
      'metadata_document',
      outcome.metadata,
      null,
      now.toISOString(),
      new Date(now.getTime() + DOCUMENT_CACHE_MS).toISOString(),
    );
    await this.deps.repo.upsertDocumentClient(document);
    return { client: clientOf(document) };
  }

  private async fetchAndParse(clientId: string): Promise<{ metadata: Metadata } | Unresolved> {
    const fetched = await fetchMetadataDocument(clientId, { lookup: this.deps.lookup, fetch: this.deps.fetch });
    if (!fetched.ok) return { problem: fetched.reason };
    if (fetched.document.client_id !== clientId)
      return { problem: 'The client metadata document does not name its own URL as client_id.' };
    try {
      return { metadata: parseMetadata(fetched.document, { allScopes: this.deps.allScopes, document: true }) };
    } catch (error) {
      if (error instanceof OAuthError)
        return { problem: `The client metadata document is not acceptable: ${error.message}` };
      throw error;
    }
  }

  /**
   * Authenticates the client of a token, introspection or revocation request by the method it
   * registered: HTTP Basic, the secret in the form, or none (a public client names itself).
   */
  async authenticate(presented: PresentedClient): Promise<Client> {
    const basic = presented.authorization ? basicCredentials(presented.authorization) : null;
    if (basic && presented.clientSecret !== undefined)
      throw new OAuthError(
        'invalid_request',
        'Authenticate the client with one method only: HTTP Basic or client_secret in the body.',
      );
    if (basic && presented.clientId !== undefined && presented.clientId !== basic.id)
      throw new OAuthError('invalid_request', 'client_id differs from the one in the Authorization header.');
    const method: ClientAuthMethod = basic
      ? 'client_secret_basic'
      : presented.clientSecret !== undefined
        ? 'client_secret_post'
        : 'none';
    const clientId = basic?.id ?? presented.clientId;
    if (!clientId)
      throw invalidClient(
        'Client authentication is required: HTTP Basic, client_id and client_secret, or client_id for a public client.',
      );
    const resolved = await this.resolve(clientId);
    if ('busy' in resolved)
      throw new OAuthError('temporarily_unavailable', resolved.problem, 503, { 'Retry-After': '1' });
    if (!('client' in resolved)) throw invalidClient('The client is unknown.');
    const { client } = resolved;
    if (client.authMethod !== method) {
      throw invalidClient(
        client.authMethod === 'none'
          ? 'The client is public: send client_id alone, without a secret.'
          : `The client authenticates with ${client.authMethod}.`,
      );
    }
    const secret = basic?.secret ?? presented.clientSecret;
    if (
      method !== 'none' &&
      (!client.secretHash || !secret || !constantTimeEqualHex(client.secretHash, sha256Hex(secret)))
    ) {
      throw invalidClient('The client secret is wrong.');
    }
    return client;
  }
}
