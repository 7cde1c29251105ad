// The authorization server's rules (contract §8): authorization requests, consent, codes (single
// use, 60 s, PKCE S256), grants, access tokens (1 h) and rotated refresh tokens with reuse
// detection, introspection and revocation, and access tokens as credentials of agent routes.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import type { AgentPrincipal, BearerResource } from '../../operations/principals.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import { newHandle, newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { constantTimeEqualHex, displayPrefix, newSecret, sha256Hex } from '../../lib/secrets.ts';
import { ACCESS_TOKEN_PREFIX } from '../organizations/service.ts';
import { redirectUriMatches, type Client, type OAuthClients, type PresentedClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import type { OAuthRepository } from './repository.ts';
import type { OAuthGrantsTable, OAuthTokensTable } from './tables.ts';

export { ACCESS_TOKEN_PREFIX };
export const REFRESH_TOKEN_PREFIX = 'cg_rt_';
const CODE_PREFIX = 'cg_ac_';
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const CODE_TTL_MS = 60 * 1000;
/** How long an authorization request waits for its consent; then it is deleted (prune). */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
/** An approved request's code is kept this long past its expiry, so a late replay still revokes. */
export const CODE_REPLAY_WINDOW_MS = 60 * 60 * 1000;
/** A registered client that never got a grant is deleted this long after its registration. */
export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;
/** How often every process prunes expired requests and unused clients. */
export const OAUTH_PRUNE_INTERVAL_MS = 60 * 1000;
const PKCE = /^[A-Za-z0-9\-._~]{43,128}$/;
const MAX_STATE_LENGTH = 2048;

/** Parameters of a request: a value, or several when the name was repeated. */
export type Params = Record<string, string | string[] | undefined>;

/** What GET /oauth/authorize answers: an error page (never a redirect) or a 303. */
export type AuthorizeOutcome =
  | { kind: 'page'; message: string; status?: number; headers?: Record<string, string> }
  | { kind: 'redirect'; location: string };

const scopeList = (scope: string) => scope.split(' ').filter(Boolean);

/**
 * The distinct scopes a request names, all of `allowed` when it names none; 400 invalid_scope naming
 * the first one outside `allowed` (cut to 100 characters), and `why` it is refused.
 */
function scopesWithin(scope: string | undefined, allowed: string[], why: string): string[] {
  const scopes = scope === undefined ? [] : [...new Set(scopeList(scope))];
  const outside = scopes.find((s) => !allowed.includes(s));
  if (outside) throw new OAuthError('invalid_scope', `The scope ${outside.slice(0, 100)} ${why}.`);
  return scopes.length > 0 ? scopes : allowed;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function single(params: Params, name: string): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated.`);
  return value === '' ? undefined : value;
}

function required(params: Params, name: string): string {
  const value = single(params, name);
  if (value === undefined) throw new OAuthError('invalid_request', `The parameter ${name} is required.`);
  return value;
}

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** RFC 8414 authorization server metadata of the server at `issuer`. */
export function serverMetadata(issuer: string, scopes: string[], docsUrl: string) {
  const methods = ['client_secret_basic', 'client_secret_post', 'none'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: scopes,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: methods,
    introspection_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    code_challenge_methods_supported: ['S256'],
    service_documentation: `${docsUrl}`,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/**
 * A positive access-token lookup is kept at most this long. Every revocation clears the cache at
 * once, in this process and, on PostgreSQL, in every other (NOTIFY, see module.ts); the bound only
 * covers a notification lost while a process's LISTEN connection was down.
 */
export const TOKEN_CACHE_MS = 5_000;

export class OAuthService {
  private readonly deps: {
    repo: OAuthRepository;
    clock: Clock;
    clients: OAuthClients;
    /** The issuer: the base URL of the API. */
    baseUrl: string;
    consoleUrl: string;
    allScopes: string[];
    /** The scopes a resource's metadata lists when it uses fewer than all (the MCP tools'). */
    resourceScopes?: Partial<Record<BearerResource, readonly string[]>>;
  };
  private readonly repo: OAuthRepository;
  private readonly tokenCache = new Map<string, { principal: AgentPrincipal; until: number }>();
  private readonly db: Kysely<DB>;
  private readonly clock: Clock;
  readonly resources: Record<BearerResource, string>;

  constructor(deps: OAuthService['deps']) {
    this.deps = deps;
    this.repo = deps.repo;
    this.db = deps.repo.db;
    this.clock = deps.clock;
    this.resources = { v1: `${deps.baseUrl}/v1`, mcp: `${deps.baseUrl}/mcp` };
    this.repo.onRevocation(() => this.forgetTokens());
  }

  /** Drops every cached access token (a revocation happened here or in another process). */
  forgetTokens(): void {
    this.tokenCache.clear();
  }

  // --- Discovery -----------------------------------------------------------------------------

  /** RFC 8414 authorization server metadata. */
  serverMetadata(docsUrl: string) {
    return serverMetadata(this.deps.baseUrl, this.deps.allScopes, docsUrl);
  }

  /** RFC 9728 protected resource metadata of the REST API or the MCP endpoint. */
  resourceMetadata(resource: BearerResource, docsUrl: string) {
    return {
      resource: this.resources[resource],
      authorization_servers: [this.deps.baseUrl],
      scopes_supported: [...(this.deps.resourceScopes?.[resource] ?? this.deps.allScopes)],
      bearer_methods_supported: ['header'],
      resource_name: resource === 'v1' ? 'Cellgate REST API' : 'Cellgate MCP endpoint',
      resource_documentation: docsUrl,
    };
  }

  // --- Authorization request -----------------------------------------------------------------

  /**
   * Validates an authorization request. Until the client and its redirect URI are known good,
   * every error is a page: nothing is ever sent to a redirect URI that is not registered.
   */
  async authorize(params: Params): Promise<AuthorizeOutcome> {
    const clientId = params.client_id;
    if (typeof clientId !== 'string' || clientId === '')
      return { kind: 'page', message: 'The request has no client_id (or repeats it).' };
    const resolved = await this.deps.clients.resolve(clientId);
    // Too many document fetches at once: a 503 page, since no redirect URI is known good yet.
    if ('busy' in resolved)
      return { kind: 'page', message: resolved.problem, status: 503, headers: { 'retry-after': '1' } };
    if (!('client' in resolved)) return { kind: 'page', message: resolved.problem };
    const { client } = resolved;
    const redirectUri = params.redirect_uri;
    if (typeof redirectUri !== 'string' || redirectUri === '')
      return { kind: 'page', message: 'The request has no redirect_uri (or repeats it).' };
    if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
      return { kind: 'page', message: 'The redirect_uri is not registered for this client.' };
    }
    const state =
      typeof params.state === 'string' && params.state.length <= MAX_STATE_LENGTH ? params.state : undefined;
    try {
      const id = await this.storeRequest(client, redirectUri, params);
      const consent = new URL(`${this.deps.consoleUrl}/consent`);
      consent.searchParams.set('request', id);
      return { kind: 'redirect', location: consent.toString() };
    } catch (error) {
      if (error instanceof OAuthError) {
        return {
          kind: 'redirect',
          location: this.responseUrl(redirectUri, { error: error.error, error_description: error.message, state }),
        };
      }
      throw error;
    }
  }

  private async storeRequest(client: Client, redirectUri: string, params: Params): Promise<string> {
    for (const [name, value] of Object.entries(params)) {
      if (Array.isArray(value)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated.`);
    }
    const responseType = single(params, 'response_type');
    if (responseType === undefined) throw new OAuthError('invalid_request', 'response_type is required; use "code".');
    if (responseType !== 'code')
      throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
    if (!client.grantTypes.includes('authorization_code'))
      throw new OAuthError('unauthorized_client', 'The client may not use the authorization code grant.');
    const state = single(params, 'state');
    if (state !== undefined && state.length > MAX_STATE_LENGTH)
      throw new OAuthError('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters.`);
    const challenge = single(params, 'code_challenge');
    if (challenge === undefined)
      throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    if (single(params, 'code_challenge_method') !== 'S256')
      throw new OAuthError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
    if (!PKCE.test(challenge))
      throw new OAuthError('invalid_request', 'code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~.');
    const allowed = client.scopes ?? this.deps.allScopes;
    const scopes = scopesWithin(single(params, 'scope'), allowed, 'is not available to this client');
    const resource = single(params, 'resource') ?? this.resources.v1;
    if (!Object.values(this.resources).includes(resource)) {
      throw new OAuthError('invalid_target', `resource must be ${this.resources.v1} or ${this.resources.mcp}.`);
    }
    const now = this.clock.now();
    // The handle is the only proof the consent link carries: random, never a time-ordered id.
    const id = newHandle('oar');
    await this.repo.insertRequest({
      id,
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: scopes.join(' '),
      state: state ?? null,
      code_challenge: challenge,
      resource,
      status: 'pending',
      organization_id: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + REQUEST_TTL_MS).toISOString(),
      decided_at: null,
      code_hash: null,
      code_expires_at: null,
      code_used_at: null,
      grant_id: null,
    });
    return id;
  }

  /** The redirect URI with the authorization response parameters, always with `iss` (RFC 9207). */
  private responseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries({ ...params, iss: this.deps.baseUrl }))
      if (value !== undefined) url.searchParams.set(name, value);
    return url.toString();
  }

  /**
   * Deletes what unauthenticated callers left behind: expired authorization requests (an
   * approved one once its code is past the replay window) and clients with no grant, registered
   * ones 24 h after registration and cached metadata documents once stale. Idempotent.
   */
  async prune(): Promise<{ requests: number; clients: number }> {
    const now = this.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    return this.repo.prune({
      now: iso(now),
      codesBefore: iso(now - CODE_REPLAY_WINDOW_MS),
      registeredBefore: iso(now - UNUSED_CLIENT_TTL_MS),
    });
  }

  // --- Consent -------------------------------------------------------------------------------

  /** A pending authorization request, as the consent screen shows it; it becomes the organization's. */
  async describeRequest(organizationId: string, requestId: string) {
    const row = await this.repo.findRequest(this.db, requestId);
    if (!row || !(await this.repo.claimRequest(requestId, organizationId))) throw notFound('authorization request');
    const resolved = await this.deps.clients.resolve(row.client_id);
    const client = 'client' in resolved ? resolved.client : null;
    return {
      id: row.id,
      status: row.status,
      client_id: row.client_id,
      client_name: client?.name ?? null,
      redirect_uri: row.redirect_uri,
      redirect_host: new URL(row.redirect_uri).host,
      scopes: scopeList(row.scope),
      resource: row.resource,
      created_at: row.created_at,
      expires_at: row.expires_at,
    };
  }

  /**
   * Approves or denies a request once, for the organization deciding it (API key or console
   * session alike); the answer is the URL to send the user back to, with the code or the denial.
   */
  async decide(organizationId: string, requestId: string, approve: boolean): Promise<{ redirect_url: string }> {
    const row = await this.repo.findRequest(this.db, requestId);
    if (!row || (row.organization_id !== null && row.organization_id !== organizationId))
      throw notFound('authorization request');
    if (row.status !== 'pending')
      throw new ApiError('conflict', `The authorization request was already ${row.status}.`);
    const now = this.clock.now();
    if (row.expires_at <= now.toISOString())
      throw new ApiError('conflict', 'The authorization request expired; the client must start again.');
    const code = approve ? newSecret(CODE_PREFIX) : null;
    const decided = await this.repo.decideRequest(requestId, organizationId, {
      status: approve ? 'approved' : 'denied',
      decided_at: now.toISOString(),
      code_hash: code ? sha256Hex(code) : null,
      code_expires_at: code ? new Date(now.getTime() + CODE_TTL_MS).toISOString() : null,
    });
    if (!decided) {
      // Someone decided it between the read and the write.
      const current = await this.repo.findRequest(this.db, requestId);
      if (current?.organization_id !== organizationId) throw notFound('authorization request');
      throw new ApiError('conflict', `The authorization request was already ${current.status}.`);
    }
    const state = row.state ?? undefined;
    return {
      redirect_url: code
        ? this.responseUrl(row.redirect_uri, { code, state })
        : this.responseUrl(row.redirect_uri, {
            error: 'access_denied',
            error_description: 'The organization denied the request.',
            state,
          }),
    };
  }

  // --- Token endpoint ------------------------------------------------------------------------

  async token(params: Params, presented: PresentedClient) {
    const grantType = required(params, 'grant_type');
    const client = await this.deps.clients.authenticate(presented);
    if (grantType === 'authorization_code') return this.exchangeCode(client, params);
    if (grantType === 'refresh_token') return this.refresh(client, params);
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }

  private async exchangeCode(client: Client, params: Params) {
    const code = required(params, 'code');
    const redirectUri = required(params, 'redirect_uri');
    const verifier = required(params, 'code_verifier');
    if (!PKCE.test(verifier))
      throw new OAuthError('invalid_request', 'code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~.');
    const resource = single(params, 'resource');
    const row = await this.repo.findRequestByCode(sha256Hex(code));
    if (!row || row.client_id !== client.id)
      throw new OAuthError('invalid_grant', 'The authorization code is unknown or was issued to another client.');

    // The code is spent by the first presentation, good or bad; errors come after the commit.
    const outcome = await transact(this.db, async (tx) => {
      const now = this.clock.now().toISOString();
      if (!(await this.repo.useCode(tx, row.id, now))) {
        const current = await this.repo.findRequest(tx, row.id);
        if (current?.grant_id) await this.repo.revokeGrant(tx, current.grant_id, 'authorization code reused', now);
        return new OAuthError(
          'invalid_grant',
          'The authorization code was already used; the tokens issued for it are revoked.',
        );
      }
      if (row.code_expires_at === null || row.code_expires_at <= now)
        return new OAuthError('invalid_grant', 'The authorization code expired.');
      if (row.redirect_uri !== redirectUri)
        return new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
      if (
        !constantTimeEqualHex(
          Buffer.from(pkceChallenge(verifier)).toString('hex'),
          Buffer.from(row.code_challenge).toString('hex'),
        )
      ) {
        return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
      }
      if (resource !== undefined && resource !== row.resource)
        return new OAuthError('invalid_target', `The code was issued for the resource ${row.resource}.`);
      const grant: OAuthGrantsTable = {
        id: newId('grt', this.clock),
        organization_id: row.organization_id as string,
        client_id: client.id,
        scope: row.scope,
        resource: row.resource,
        created_at: now,
        revoked_at: null,
        revoked_reason: null,
      };
      await this.repo.insertGrant(tx, grant);
      await this.repo.setRequestGrant(tx, row.id, grant.id);
      return this.issue(tx, grant, client, scopeList(grant.scope));
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  private async refresh(client: Client, params: Params) {
    const presented = required(params, 'refresh_token');
    if (!client.grantTypes.includes('refresh_token'))
      throw new OAuthError('unauthorized_client', 'The client did not register the refresh_token grant type.');
    const scope = single(params, 'scope');
    const resource = single(params, 'resource');
    const row = await this.repo.findToken(sha256Hex(presented));
    const nowIso = this.clock.now().toISOString();
    if (!row || row.kind !== 'refresh' || row.client_id !== client.id)
      throw new OAuthError('invalid_grant', 'The refresh token is unknown or was issued to another client.');
    if (row.revoked_at !== null) throw new OAuthError('invalid_grant', 'The refresh token was revoked.');
    if (row.used_at === null && row.expires_at <= nowIso)
      throw new OAuthError('invalid_grant', 'The refresh token expired.');
    const scopes = scopesWithin(scope, scopeList(row.scope), 'was not granted');
    if (resource !== undefined && resource !== row.resource)
      throw new OAuthError('invalid_target', `The grant is for the resource ${row.resource}.`);

    const outcome = await transact(this.db, async (tx) => {
      const now = this.clock.now().toISOString();
      if (!(await this.repo.useRefreshToken(tx, row.id, now))) {
        // Presented again after its rotation: someone holds a copy. The whole grant goes.
        await this.repo.revokeGrant(tx, row.grant_id, 'refresh token reused', now);
        return new OAuthError('invalid_grant', 'The refresh token was already used; the grant is revoked.');
      }
      const grant = await this.repo.findGrant(tx, row.grant_id);
      if (!grant || grant.revoked_at !== null) return new OAuthError('invalid_grant', 'The grant was revoked.');
      return this.issue(tx, grant, client, scopes);
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  /** A new access token (and refresh token, for clients with that grant type) under a grant. */
  private async issue(
    tx: Parameters<OAuthRepository['insertTokens']>[0],
    grant: OAuthGrantsTable,
    client: Client,
    scopes: string[],
  ) {
    const now = this.clock.now();
    const access = newSecret(ACCESS_TOKEN_PREFIX);
    const refresh = client.grantTypes.includes('refresh_token') ? newSecret(REFRESH_TOKEN_PREFIX) : null;
    const row = (kind: 'access' | 'refresh', secret: string, scope: string, ttl: number): OAuthTokensTable => ({
      id: newId(kind === 'access' ? 'oat' : 'ort', this.clock, now),
      kind,
      token_hash: sha256Hex(secret),
      prefix: displayPrefix(secret),
      grant_id: grant.id,
      organization_id: grant.organization_id,
      client_id: client.id,
      scope,
      resource: grant.resource,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttl).toISOString(),
      used_at: null,
      revoked_at: null,
    });
    const rows = [row('access', access, scopes.join(' '), ACCESS_TOKEN_TTL_MS)];
    // RFC 6749 §6: the new refresh token has the scope of the grant, whatever the access token's.
    if (refresh) rows.push(row('refresh', refresh, grant.scope, REFRESH_TOKEN_TTL_MS));
    await this.repo.insertTokens(tx, rows);
    return {
      access_token: access,
      token_type: 'Bearer' as const,
      expires_in: ACCESS_TOKEN_TTL_MS / 1000,
      scope: scopes.join(' '),
      ...(refresh ? { refresh_token: refresh } : {}),
    };
  }

  // --- Introspection and revocation ----------------------------------------------------------

  /** RFC 7662: active only for a live token of the calling client; anything else is inactive. */
  async introspect(params: Params, presented: PresentedClient) {
    const token = required(params, 'token');
    const client = await this.deps.clients.authenticate(presented);
    const row = await this.repo.findToken(sha256Hex(token));
    const now = this.clock.now().toISOString();
    if (!row || row.client_id !== client.id || row.revoked_at !== null || row.used_at !== null || row.expires_at <= now)
      return { active: false };
    return {
      active: true,
      scope: row.scope,
      client_id: row.client_id,
      token_type: row.kind === 'access' ? 'Bearer' : 'refresh_token',
      exp: seconds(row.expires_at),
      iat: seconds(row.created_at),
      sub: row.organization_id,
      aud: row.resource,
      iss: this.deps.baseUrl,
      jti: row.id,
    };
  }

  /**
   * RFC 7009: revokes a token of the calling client (a refresh token takes its whole grant);
   * an unknown or foreign token is answered the same way and left alone.
   */
  async revoke(params: Params, presented: PresentedClient): Promise<void> {
    const token = required(params, 'token');
    const client = await this.deps.clients.authenticate(presented);
    const row = await this.repo.findToken(sha256Hex(token));
    if (!row || row.client_id !== client.id) return;
    const now = this.clock.now().toISOString();
    if (row.kind === 'access') await this.repo.revokeToken(row.id, now);
    else
      await transact(this.db, (tx) =>
        this.repo.revokeGrant(tx, row.grant_id, 'refresh token revoked by the client', now),
      );
  }

  // --- Grants of an organization -------------------------------------------------------------

  async listGrants(organizationId: string, query: PageQuery) {
    const page = await pageById(query, (before, count) => this.repo.listActiveGrants(organizationId, before, count));
    return {
      grants: page.items.map((row) => ({
        id: row.id,
        client_id: row.client_id,
        client_name: row.client_name,
        scopes: scopeList(row.scope),
        resource: row.resource,
        created_at: row.created_at,
      })),
      next_cursor: page.next_cursor,
    };
  }

  async revokeGrant(organizationId: string, grantId: string): Promise<void> {
    const now = this.clock.now().toISOString();
    const revoked = await transact(this.db, async (tx) => {
      const grant = await this.repo.findGrant(tx, grantId);
      if (!grant || grant.organization_id !== organizationId || grant.revoked_at !== null) return false;
      return this.repo.revokeGrant(tx, grantId, 'revoked by the organization', now, organizationId);
    });
    if (!revoked) throw notFound('grant');
  }

  // --- Access tokens as credentials ----------------------------------------------------------

  /**
   * The principal behind an access token presented to `resource`, or null when unknown, revoked,
   * expired or issued for another resource. Found ones are cached briefly (TOKEN_CACHE_MS); any
   * revocation clears the cache in every process, so it still takes effect at once.
   */
  async authenticate(token: string, resource: BearerResource = 'v1'): Promise<AgentPrincipal | null> {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const nowMs = this.clock.now().getTime();
    const key = `${resource} ${token}`;
    const cached = this.tokenCache.get(key);
    if (cached && nowMs < cached.until) return cached.principal;
    const hash = sha256Hex(token);
    const row = await this.repo.findAccessCredential(hash);
    if (!row || !constantTimeEqualHex(row.token_hash, hash)) return null;
    if (row.expires_at <= this.clock.now().toISOString() || row.resource !== this.resources[resource]) return null;
    const principal: AgentPrincipal = {
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      organizationStatus: row.organization_status,
      credentialType: 'oauth_token',
      credentialId: row.id,
      key: { id: row.id, prefix: row.prefix, created_at: row.created_at, last_used_at: null },
      scopes: scopeList(row.scope),
      client: { id: row.client_id, name: row.client_name },
    };
    if (this.tokenCache.size > 100_000) this.tokenCache.clear();
    this.tokenCache.set(key, { principal, until: Math.min(nowMs + TOKEN_CACHE_MS, Date.parse(row.expires_at)) });
    return principal;
  }
}
