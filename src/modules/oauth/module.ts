// OAuth 2.0 authorization server: clients, authorization requests and consent, tokens, grants,
// and access tokens as credentials of agent routes (wired into the organizations' authenticator).
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { PgListener, type ListenerLog } from '../../db/pg-listener.ts';
import type { DB } from '../../db/schema.ts';
import type { ResourceMetadataUrls } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemLookup, type Lookup } from '../../lib/ssrf.ts';
import { MCP_SCOPES } from '../mcp/scopes.ts';
import { OAuthClients } from './clients.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { consentOperations } from './operations.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import { documentFetcher, type DocumentFetcher } from './metadata-document.ts';
import { DEFAULT_ADDRESS_LIMITS, registerProtocolRoutes, type AddressLimits } from './protocol-routes.ts';
import { OAuthRepository, REVOCATIONS_CHANNEL } from './repository.ts';
import { OAuthService } from './service.ts';

/** Egress of Client ID Metadata Document fetches, and the limits (tests replace them). */
export interface OAuthOptions {
  lookup?: Lookup;
  fetchDocument?: DocumentFetcher;
  /** The total deadline of the default fetcher (5 s). */
  documentDeadlineMs?: number;
  /** Metadata document fetches at once in this process (16). */
  maxConcurrentFetches?: number;
  /** Per-address limits of /oauth/register and /oauth/authorize (a null bucket: unlimited). */
  addressLimits?: AddressLimits;
}

export interface OAuthModule {
  oauth: OAuthService;
  /** On PostgreSQL: hears revocations made by other processes, to drop cached tokens. */
  revocations: PgListener | null;
  clients: OAuthClients;
  /** Where each bearer resource's RFC 9728 metadata is (the 401 challenge names it). */
  resourceMetadata: ResourceMetadataUrls;
  addressLimits: AddressLimits;
}

export function build(deps: {
  db: Kysely<DB>;
  clock: Clock;
  baseUrl: string;
  consoleUrl: string;
  allScopes: string[];
  options?: OAuthOptions;
  pgClient: pg.ClientConfig | null;
  log: ListenerLog;
}): OAuthModule {
  const repo = new OAuthRepository(deps.db);
  const clients = new OAuthClients({
    ...deps,
    repo,
    lookup: deps.options?.lookup ?? systemLookup,
    fetch: deps.options?.fetchDocument ?? documentFetcher({ deadlineMs: deps.options?.documentDeadlineMs }),
    maxConcurrentFetches: deps.options?.maxConcurrentFetches,
  });
  // The MCP endpoint's metadata lists the scopes its tools use (a constant table, no service).
  const oauth = new OAuthService({
    ...deps,
    repo,
    clients,
    resourceScopes: { mcp: MCP_SCOPES },
  });
  const revocations = deps.pgClient
    ? new PgListener({
        config: deps.pgClient,
        channel: REVOCATIONS_CHANNEL,
        onNotify: () => oauth.forgetTokens(),
        log: deps.log,
      })
    : null;
  const resourceMetadata = {
    v1: `${deps.baseUrl}/.well-known/oauth-protected-resource`,
    mcp: `${deps.baseUrl}/.well-known/oauth-protected-resource/mcp`,
  };
  return {
    oauth,
    clients,
    resourceMetadata,
    revocations,
    addressLimits: deps.options?.addressLimits ?? DEFAULT_ADDRESS_LIMITS,
  };
}

/** `limiter` and `now`: the app's rate limiter and clock, for the per-address limits. */
export function register(
  app: App,
  module: OAuthModule,
  deps: { docsUrl: string; rest: RestBinder; limiter?: RateLimiter; now?: () => number },
): void {
  const { revocations } = module;
  if (revocations) {
    app.addHook('onReady', () => revocations.start());
    app.addHook('onClose', () => revocations.stop());
  }
  registerProtocolRoutes(app, { ...module, ...deps, limits: module.addressLimits });
  registerConsentRoutes(app, deps.rest, consentOperations(module.oauth));
}
